-- wrk script for bench/intake: POST /submissions as the SDK's senders do.
-- Environment: FORM_ID, RECIPIENT_PUBKEY, CT_1K, CT_8K, CT_64K (base64 ciphertexts), MODE and
-- RUN_TAG. MODE:
--   random  a fresh UUIDv4 id (dashes removed, as the SDK makes them) per request, 1 KiB
--   mix     random ids; ciphertexts of 1 KiB (60%), 8 KiB (30%) or 64 KiB (10%); 10% of the
--           requests repeat an earlier submission of the same thread byte for byte (a retry:
--           answered as an idempotent replay)
--   seq     sequential ids (RUN_TAG, thread number, counter), 1 KiB: the old, kinder load
-- `thread_no` is set per thread by setup() (a global: a local here would shadow it).
local threads = 0

function setup(thread)
  thread:set("thread_no", threads)
  threads = threads + 1
end

function init(args)
  form_id = os.getenv("FORM_ID")
  pubkey = os.getenv("RECIPIENT_PUBKEY")
  cts = { os.getenv("CT_1K"), os.getenv("CT_8K"), os.getenv("CT_64K") }
  mode = os.getenv("MODE")
  run_tag = os.getenv("RUN_TAG")
  counter = 0
  sent = {}
  sent_n = 0
  -- Seed per thread and per run: os.time() alone would give both threads the same ids.
  math.randomseed(os.time() * 1000 + thread_no * 7919 + tonumber(string.sub(run_tag, 1, 6), 16))
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

local function hex16()
  return string.format("%04x", math.random(0, 65535))
end

-- A UUIDv4 without dashes: version nibble 4, variant bits 10.
local function uuid4()
  local a = hex16() .. hex16() .. hex16()
  local b = string.format("4%03x", math.random(0, 4095))
  local c = string.format("%x%03x", math.random(8, 11), math.random(0, 4095))
  return a .. b .. c .. hex16() .. hex16() .. hex16()
end

local function body(id, size)
  return '{"submissionId":"' .. id .. '","formId":"' .. form_id .. '","recipientPubkey":"' ..
    pubkey .. '","submitterId":null,"ciphertext":"' .. cts[size] .. '"}'
end

function request()
  counter = counter + 1
  if mode == "seq" then
    return wrk.format(nil, nil, nil, body(string.format("%s%02x%022x", run_tag, thread_no, counter), 1))
  end
  if mode == "random" then
    return wrk.format(nil, nil, nil, body(uuid4(), 1))
  end
  if sent_n > 0 and math.random() < 0.1 then
    local again = sent[math.random(1, sent_n)]
    return wrk.format(nil, nil, nil, body(again[1], again[2]))
  end
  local r = math.random()
  local size = r < 0.6 and 1 or (r < 0.9 and 2 or 3)
  local id = uuid4()
  -- Remember the last 256 submissions of this thread for retries.
  sent[(sent_n < 256 and sent_n or (counter % 256)) + 1] = { id, size }
  sent_n = math.min(sent_n + 1, 256)
  return wrk.format(nil, nil, nil, body(id, size))
end
