-- wrk script for bench/intake: POST /submissions with a unique submissionId per request.
-- FORM_ID, RECIPIENT_PUBKEY and CIPHERTEXT come from the environment.
-- `thread_no` is set per thread by setup() (a global: a local here would shadow it).
local counter = 0
local threads = 0

function setup(thread)
  thread:set("thread_no", threads)
  threads = threads + 1
end

function init(args)
  form_id = os.getenv("FORM_ID")
  pubkey = os.getenv("RECIPIENT_PUBKEY")
  ciphertext = os.getenv("CIPHERTEXT")
  run_tag = os.getenv("RUN_TAG")
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  counter = counter + 1
  local id = string.format("%s%02x%022x", run_tag, thread_no, counter)
  local body = '{"submissionId":"' .. id .. '","formId":"' .. form_id ..
    '","recipientPubkey":"' .. pubkey .. '","submitterId":null,"ciphertext":"' .. ciphertext .. '"}'
  return wrk.format(nil, nil, nil, body)
end
