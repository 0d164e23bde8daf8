import assert from "node:assert/strict";
import { open } from "../../src/crypto/sealed_box.ts";
import {
  envelopeFor,
  newSubmissionId,
  publishForm,
  registerDatabase,
  type TestDatabase,
} from "../_support/owner.ts";
import { call, startInstance, type TestInstance } from "../_support/server.ts";

async function setup(env: Record<string, string> = {}) {
  const inst = await startInstance(env);
  const db = await registerDatabase(inst);
  await publishForm(inst, db, "contact");
  return { inst, db };
}

function post(inst: TestInstance, json: unknown) {
  return call(`${inst.url}/submissions`, { method: "POST", json });
}

async function queue(inst: TestInstance, db: TestDatabase, query = "") {
  const res = await call(`${inst.url}/owner/queues/${db.fingerprint}${query}`, {
    token: inst.credentials.ownerToken,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as {
    items: { submissionId: string; version: number; ciphertext: string; seq: number }[];
    nextCursor: string | null;
  };
}

Deno.test("POST /submissions: 200 with an edit token; durable, queued and openable", async () => {
  const { inst, db } = await setup();
  try {
    const envelope = await envelopeFor(db, "contact");
    const res = await post(inst, envelope);
    assert.equal(res.status, 200);
    assert.equal(res.body.submissionId, envelope.submissionId);
    assert.match(res.body.editToken, /^[A-Za-z0-9_-]{43}$/);
    const { items } = await queue(inst, db);
    assert.equal(items.length, 1);
    assert.equal(items[0].submissionId, envelope.submissionId);
    assert.equal(items[0].ciphertext, envelope.ciphertext);
    const plain = await open(
      Uint8Array.fromBase64(items[0].ciphertext),
      Uint8Array.fromBase64(db.publicKey),
      db.secretKey,
    );
    assert.equal(JSON.parse(new TextDecoder().decode(plain)).values.name, "Ada");
  } finally {
    await inst.close();
  }
});

Deno.test("POST /submissions: a replay answers the same token; other bytes are a 409", async () => {
  const { inst, db } = await setup();
  try {
    const envelope = await envelopeFor(db, "contact");
    const first = await post(inst, envelope);
    const again = await post(inst, envelope);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
    const other = await envelopeFor(db, "contact", undefined, envelope.submissionId);
    const conflict = await post(inst, other);
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.error.code, "submission_conflict");
    assert.equal((await queue(inst, db)).items.length, 1);
  } finally {
    await inst.close();
  }
});

Deno.test("POST /submissions: 400 for each missing or malformed field, JSON error shape", async () => {
  const { inst, db } = await setup();
  try {
    const good = await envelopeFor(db, "contact");
    // 49 bytes: "==" padding, and "+" and "/" in the text.
    const b64 = new Uint8Array(49).fill(0xfb).toBase64();
    assert.ok(b64.endsWith("==") && b64.includes("+") && b64.includes("/"));
    const cases: [string, Record<string, unknown>][] = [
      ["submissionId", { ...good, submissionId: undefined }],
      ["formId", { ...good, formId: undefined }],
      ["recipientPubkey", { ...good, recipientPubkey: undefined }],
      ["ciphertext", { ...good, ciphertext: undefined }],
      ["submissionId", { ...good, submissionId: "ABCDEF" + good.submissionId.slice(6) }],
      ["submissionId", { ...good, submissionId: good.submissionId.slice(1) }],
      ["submissionId", { ...good, submissionId: 42 }],
      ["recipientPubkey", { ...good, recipientPubkey: "AAAA" }],
      ["recipientPubkey", { ...good, recipientPubkey: "not base64!" }],
      ["ciphertext", { ...good, ciphertext: "%%%%" }],
      // Canonical standard base64 only, as the schemas' isBase64 (checked as intake decodes it):
      ["ciphertext", { ...good, ciphertext: b64.replace(/=+$/, "") }], // no padding
      ["ciphertext", { ...good, ciphertext: `${b64.slice(0, 8)}\n${b64.slice(9)}` }],
      ["ciphertext", { ...good, ciphertext: `${b64.slice(0, 4)}    ${b64.slice(4)}` }],
      ["ciphertext", { ...good, ciphertext: b64.replaceAll("+", "-").replaceAll("/", "_") }],
      ["ciphertext", { ...good, ciphertext: `${"A".repeat(66)}B=` }], // non-zero trailing bits
      ["ciphertext", { ...good, ciphertext: 42 }],
      ["ciphertext", { ...good, ciphertext: new Uint8Array(47).toBase64() }],
      ["submitterId", { ...good, submitterId: 12 }],
    ];
    for (const [field, body] of cases) {
      const res = await post(inst, body);
      assert.equal(res.status, 400, `${field}: ${JSON.stringify(res.body)}`);
      assert.equal(typeof res.body.error.code, "string");
      assert.equal(typeof res.body.error.message, "string");
      assert.equal(res.body.error.field, field, JSON.stringify(res.body));
    }
    const notJson = await call(`${inst.url}/submissions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    assert.equal(notJson.status, 400);
    assert.equal(notJson.body.error.code, "invalid_json");
    const array = await post(inst, [good]);
    assert.equal(array.status, 400);
    const wrongType = await call(`${inst.url}/submissions`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify(good),
    });
    assert.equal(wrongType.status, 415);
    assert.equal((await queue(inst, db)).items.length, 0, "nothing half-written");
  } finally {
    await inst.close();
  }
});

Deno.test("POST /submissions: 404 for an unpublished form or another key", async () => {
  const { inst, db } = await setup();
  try {
    const unknown = await post(inst, await envelopeFor(db, "nope"));
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, "form_not_found");
    const other = await registerDatabase(inst);
    const mismatch = await post(inst, await envelopeFor(other, "contact"));
    assert.equal(mismatch.status, 404);
    assert.equal(mismatch.body.error.code, "recipient_mismatch");
  } finally {
    await inst.close();
  }
});

Deno.test("POST /submissions: 413 over the configured ciphertext cap", async () => {
  const { inst, db } = await setup({ SEALPOST_INTAKE_MAX_CIPHERTEXT_BYTES: "4096" });
  try {
    const payload = {
      values: { name: "x".repeat(5000) },
      submittedAt: "",
      formVersion: 1,
      formSchema: "",
      mode: "Create",
    };
    const res = await post(inst, await envelopeFor(db, "contact", payload));
    assert.equal(res.status, 413);
    assert.equal(res.body.error.code, "ciphertext_too_large");
    const fits = { ...payload, values: { name: "x".repeat(3000) } };
    assert.equal((await post(inst, await envelopeFor(db, "contact", fits))).status, 200);
  } finally {
    await inst.close();
  }
});

/** Sends raw HTTP and returns the status line and how many body bytes were written. */
async function rawPost(port: number, headers: string, bodyChunk: Uint8Array, maxBytes: number) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const reader = conn.readable.getReader();
  const writer = conn.writable.getWriter();
  await writer.write(new TextEncoder().encode(headers));
  let written = 0;
  let response = "";
  const reading = (async () => {
    const { value } = await reader.read();
    response = new TextDecoder().decode(value);
  })();
  let done = false;
  reading.finally(() => (done = true));
  while (!done && written < maxBytes) {
    try {
      await writer.write(bodyChunk);
    } catch {
      break; // the server closed the connection
    }
    written += bodyChunk.length;
    await new Promise((r) => setTimeout(r, 0));
  }
  await Promise.race([reading, new Promise((r) => setTimeout(r, 5000))]);
  try {
    conn.close();
  } catch { /* already closed */ }
  return { status: response.split("\r\n")[0], written };
}

Deno.test("POST /submissions: 413 decided while streaming, before a huge body is read", async () => {
  const { inst } = await setup({ SEALPOST_INTAKE_MAX_CIPHERTEXT_BYTES: "65536" });
  try {
    const port = inst.server.port;
    const declared = await rawPost(
      port,
      "POST /submissions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        `Content-Length: ${1024 ** 3}\r\n\r\n`,
      new Uint8Array(64 * 1024).fill(0x20),
      1024 ** 3,
    );
    assert.match(declared.status, / 413 /);
    assert.ok(declared.written < 64 * 1024 * 1024, `wrote ${declared.written} bytes`);
    const chunk = new TextEncoder().encode(`10000\r\n${" ".repeat(0x10000)}\r\n`);
    const chunked = await rawPost(
      port,
      "POST /submissions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        "Transfer-Encoding: chunked\r\n\r\n",
      chunk,
      1024 ** 3,
    );
    assert.match(chunked.status, / 413 /);
    assert.ok(chunked.written < 64 * 1024 * 1024, `wrote ${chunked.written} bytes`);
  } finally {
    await inst.close();
  }
});

Deno.test("POST /submissions: a 2 MiB ciphertext lies in the segment files, read back whole", async () => {
  const { inst, db } = await setup();
  try {
    const big = {
      values: { name: "y".repeat(2 * 1024 * 1024) },
      submittedAt: "",
      formVersion: 1,
      formSchema: "",
      mode: "Create",
    };
    const envelope = await envelopeFor(db, "contact", big);
    assert.equal((await post(inst, envelope)).status, 200);
    const { items } = await queue(inst, db);
    assert.equal(items[0].ciphertext, envelope.ciphertext);
    let segmentBytes = 0;
    for await (const file of Deno.readDir(`${inst.config.data_dir}/segments`)) {
      segmentBytes += (await Deno.stat(`${inst.config.data_dir}/segments/${file.name}`)).size;
    }
    assert.equal(segmentBytes, Uint8Array.fromBase64(envelope.ciphertext).length);
    const kvBytes = (await Deno.stat(`${inst.config.data_dir}/sealpost.kv`)).size +
      (await Deno.stat(`${inst.config.data_dir}/sealpost.kv-wal`)).size;
    assert.ok(kvBytes < 1024 * 1024, `the store holds rows, not the ciphertext (${kvBytes} B)`);
    const ack = await call(`${inst.url}/owner/queues/${db.fingerprint}/ack`, {
      method: "POST",
      token: inst.credentials.ownerToken,
      json: { seqs: [items[0].seq] },
    });
    assert.deepEqual(ack.body, { acked: 1 });
    assert.deepEqual((await queue(inst, db)).items, []);
  } finally {
    await inst.close();
  }
});

Deno.test("200 parallel posts of one submissionId store one envelope, one token", async () => {
  const { inst, db } = await setup();
  try {
    const envelope = await envelopeFor(db, "contact");
    const results = await Promise.all(Array.from({ length: 200 }, () => post(inst, envelope)));
    assert.ok(
      results.every((r) => r.status === 200),
      JSON.stringify(results.find((r) => r.status !== 200)?.body),
    );
    assert.equal(new Set(results.map((r) => r.body.editToken)).size, 1);
    assert.equal((await queue(inst, db)).items.length, 1);
  } finally {
    await inst.close();
  }
});

Deno.test("2,000 distinct posts all appear in the queue exactly once, in order", async () => {
  const { inst, db } = await setup();
  try {
    const envelopes = await Promise.all(
      Array.from({ length: 2000 }, () => envelopeFor(db, "contact")),
    );
    for (let i = 0; i < envelopes.length; i += 100) {
      const batch = await Promise.all(envelopes.slice(i, i + 100).map((e) => post(inst, e)));
      assert.ok(batch.every((r) => r.status === 200));
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let lastSeq = 0;
    do {
      const page: Awaited<ReturnType<typeof queue>> = await queue(
        inst,
        db,
        `?limit=500${cursor ? `&after=${cursor}` : ""}`,
      );
      for (const item of page.items) {
        assert.ok(item.seq > lastSeq, "arrival order");
        lastSeq = item.seq;
        seen.push(item.submissionId);
      }
      cursor = page.nextCursor;
    } while (cursor);
    assert.equal(seen.length, 2000);
    assert.equal(new Set(seen).size, 2000);
    assert.deepEqual(new Set(seen), new Set(envelopes.map((e) => e.submissionId)));
  } finally {
    await inst.close();
  }
});

Deno.test("amend: new version queued; 401/403/404/410/400 as specified", async () => {
  const { inst, db } = await setup();
  try {
    const envelope = await envelopeFor(db, "contact");
    const { editToken } = (await post(inst, envelope)).body;
    const amended = await envelopeFor(
      db,
      "contact",
      {
        values: { name: "Grace" },
        submittedAt: "",
        formVersion: 1,
        formSchema: "",
        mode: "Update",
      },
      envelope.submissionId,
    );
    const url = `${inst.url}/submissions/${envelope.submissionId}`;
    const ok = await call(url, { method: "PUT", token: editToken, json: amended });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.version, 2);
    const replay = await call(url, { method: "PUT", token: editToken, json: amended });
    assert.equal(replay.status, 200);
    assert.equal(replay.body.version, 2, "a replayed amendment is not a new version");
    const { items } = await queue(inst, db);
    assert.deepEqual(items.map((i) => i.version), [1, 2]);
    assert.equal(items[1].ciphertext, amended.ciphertext);

    assert.equal((await call(url, { method: "PUT", json: amended })).status, 401);
    const bad = await call(url, { method: "PUT", token: "x".repeat(43), json: amended });
    assert.equal(bad.status, 403);
    const otherId = newSubmissionId();
    const unknown = await call(`${inst.url}/submissions/${otherId}`, {
      method: "PUT",
      token: editToken,
      json: { ...amended, submissionId: otherId },
    });
    assert.equal(unknown.status, 404);
    const mismatch = await call(url, {
      method: "PUT",
      token: editToken,
      json: { ...amended, submissionId: otherId },
    });
    assert.equal(mismatch.status, 400);
    // The original POST replayed after an amendment still answers 200.
    assert.equal((await post(inst, envelope)).status, 200);
  } finally {
    await inst.close();
  }
});

Deno.test("amend: 410 once the edit window is over", async () => {
  const { inst, db } = await setup({ SEALPOST_INTAKE_EDIT_WINDOW_SECONDS: "0" });
  try {
    const envelope = await envelopeFor(db, "contact");
    const { editToken } = (await post(inst, envelope)).body;
    await new Promise((r) => setTimeout(r, 5));
    const res = await call(`${inst.url}/submissions/${envelope.submissionId}`, {
      method: "PUT",
      token: editToken,
      json: await envelopeFor(db, "contact", undefined, envelope.submissionId),
    });
    assert.equal(res.status, 410);
    assert.equal(res.body.error.code, "edit_window_closed");
  } finally {
    await inst.close();
  }
});

Deno.test("rate limit: 429 with Retry-After once the bucket is empty", async () => {
  const { inst, db } = await setup({
    SEALPOST_RATE_LIMITS_ENABLED: "true",
    SEALPOST_RATE_LIMITS_SUBMISSIONS_PER_MINUTE: "1",
    SEALPOST_RATE_LIMITS_SUBMISSIONS_BURST: "2",
  });
  try {
    assert.equal((await post(inst, await envelopeFor(db, "contact"))).status, 200);
    assert.equal((await post(inst, await envelopeFor(db, "contact"))).status, 200);
    const limited = await post(inst, await envelopeFor(db, "contact"));
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, "rate_limited");
    assert.ok(Number(limited.headers.get("retry-after")) >= 1);
  } finally {
    await inst.close();
  }
});

Deno.test("rate limit: behind trusted proxies the right-most untrusted X-Forwarded-For hop picks the bucket", async () => {
  const limits = {
    SEALPOST_RATE_LIMITS_ENABLED: "true",
    SEALPOST_RATE_LIMITS_SUBMISSIONS_PER_MINUTE: "1",
    SEALPOST_RATE_LIMITS_SUBMISSIONS_BURST: "1",
  };
  const postVia = async (inst: TestInstance, db: TestDatabase, forwarded: string) =>
    (await call(`${inst.url}/submissions`, {
      method: "POST",
      headers: { "x-forwarded-for": forwarded },
      json: await envelopeFor(db, "contact"),
    })).status;
  const proxied = await setup({
    ...limits,
    SEALPOST_SERVER_TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8",
  });
  try {
    assert.equal(await postVia(proxied.inst, proxied.db, "203.0.113.1, 10.0.0.1"), 200);
    assert.equal(await postVia(proxied.inst, proxied.db, "203.0.113.1, 10.0.0.1"), 429);
    assert.equal(await postVia(proxied.inst, proxied.db, "203.0.113.2, 10.0.0.1"), 200);
    // A spoofed left-most hop does not pick a fresh bucket: the proxy appended the real one.
    assert.equal(await postVia(proxied.inst, proxied.db, "198.51.100.7, 203.0.113.2"), 429);
  } finally {
    await proxied.inst.close();
  }
  const direct = await setup(limits);
  try {
    assert.equal(await postVia(direct.inst, direct.db, "203.0.113.1"), 200);
    assert.equal(await postVia(direct.inst, direct.db, "203.0.113.2"), 429, "not a trusted peer");
  } finally {
    await direct.inst.close();
  }
});

Deno.test("intake announces each committed envelope with its recipient fingerprint", async () => {
  const { inst, db } = await setup();
  try {
    const seen: string[] = [];
    inst.server.intake.events.addEventListener("queued", (e) => {
      seen.push((e as CustomEvent<string>).detail);
    });
    await post(inst, await envelopeFor(db, "contact"));
    assert.deepEqual(seen, [db.fingerprint]);
  } finally {
    await inst.close();
  }
});
