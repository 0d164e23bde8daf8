import assert from "node:assert/strict";
import { call, startInstance } from "../_support/server.ts";
import { random, sha256 } from "./_helpers.ts";
import { readUrl, slot, upload } from "./_http.ts";

Deno.test("quota: 413 quota_exceeded on the slot and on the PUT", async () => {
  const inst = await startInstance({ SEALPOST_BLOBS_QUOTA_BYTES_PER_USER: "100" });
  try {
    const userId = inst.credentials.userId;
    const tooBig = await slot(inst, {
      recipientUserId: userId,
      hash: sha256(random(1)),
      sizeBytes: 101,
    });
    assert.equal(tooBig.status, 413);
    assert.equal(tooBig.body.error.code, "quota_exceeded");
    assert.match(tooBig.body.error.message, /quota of 100 bytes/);
    assert.equal((await upload(inst, random(60))).put.status, 201);
    const second = random(60);
    const { put } = await upload(inst, second);
    assert.equal(put.status, 413);
    assert.equal(put.body.error.code, "quota_exceeded");
    assert.equal((await readUrl(inst, sha256(second))).status, 404);
    assert.equal((await upload(inst, random(40))).put.status, 201, "what fits still fits");
  } finally {
    await inst.close();
  }
});

Deno.test("rate limits: per-address buckets on slots and on PUTs (429 + Retry-After)", async () => {
  const inst = await startInstance({
    SEALPOST_RATE_LIMITS_ENABLED: "true",
    SEALPOST_RATE_LIMITS_UPLOAD_SLOTS_PER_MINUTE: "1",
    SEALPOST_RATE_LIMITS_UPLOAD_SLOTS_BURST: "2",
    SEALPOST_RATE_LIMITS_UPLOADS_PER_MINUTE: "1",
    SEALPOST_RATE_LIMITS_UPLOADS_BURST: "1",
  });
  try {
    const bytes = random(10);
    const body = { recipientUserId: inst.credentials.userId, hash: sha256(bytes) };
    const granted = await slot(inst, body);
    assert.equal(granted.status, 200);
    assert.equal((await slot(inst, body)).status, 200);
    const limited = await slot(inst, body);
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, "rate_limited");
    assert.ok(Number(limited.headers.get("retry-after")) >= 1);
    assert.equal((await call(granted.body.url, { method: "PUT", body: bytes })).status, 201);
    const again = await call(granted.body.url, { method: "PUT", body: bytes });
    assert.equal(again.status, 429);
    assert.ok(Number(again.headers.get("retry-after")) >= 1);
  } finally {
    await inst.close();
  }
});
