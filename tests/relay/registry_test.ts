import assert from "node:assert/strict";
import { generateKeyPair } from "../../src/crypto/keys.ts";
import { open } from "../../src/crypto/sealed_box.ts";
import { envelopeFor, manifestFor, publishForm, registerDatabase } from "../_support/owner.ts";
import { call, startInstance } from "../_support/server.ts";

Deno.test("tokens: 401 without, 401 for a wrong one, 403 for the wrong kind", async () => {
  const inst = await startInstance();
  try {
    const none = await call(`${inst.url}/owner/me`);
    assert.equal(none.status, 401);
    assert.equal(none.headers.get("www-authenticate"), "Bearer");
    const [prefix, id] = inst.credentials.ownerToken.split("_");
    const forged = `${prefix}_${id}_${"A".repeat(43)}`;
    assert.equal((await call(`${inst.url}/owner/me`, { token: forged })).status, 401);
    assert.equal((await call(`${inst.url}/owner/me`, { token: "garbage" })).status, 401);
    const asAdmin = await call(`${inst.url}/owner/me`, { token: inst.credentials.adminToken });
    assert.equal(asAdmin.status, 403);
    const me = await call(`${inst.url}/owner/me`, { token: inst.credentials.ownerToken });
    assert.equal(me.status, 200);
    assert.equal(me.body.user.id, inst.credentials.userId);
  } finally {
    await inst.close();
  }
});

Deno.test("admin: creates users; owners cannot", async () => {
  const inst = await startInstance();
  try {
    const url = `${inst.url}/admin/users`;
    assert.equal((await call(url, { method: "POST", json: { name: "b" } })).status, 401);
    const asOwner = await call(url, {
      method: "POST",
      token: inst.credentials.ownerToken,
      json: { name: "b" },
    });
    assert.equal(asOwner.status, 403);
    const bad = await call(url, { method: "POST", token: inst.credentials.adminToken, json: {} });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, "name");
    const created = await call(url, {
      method: "POST",
      token: inst.credentials.adminToken,
      json: { name: "bob" },
    });
    assert.equal(created.status, 201);
    assert.match(created.body.ownerToken, /^spo_/);
    const me = await call(`${inst.url}/owner/me`, { token: created.body.ownerToken });
    assert.equal(me.body.user.name, "bob");
  } finally {
    await inst.close();
  }
});

Deno.test("databases: proof of possession, wrong answer 403, duplicate key 409", async () => {
  const inst = await startInstance();
  const token = inst.credentials.ownerToken;
  try {
    const pair = generateKeyPair();
    const publicKey = pair.publicKey.toBase64();
    const start = await call(`${inst.url}/owner/databases`, {
      method: "POST",
      token,
      json: { name: "a", publicKey },
    });
    assert.equal(start.status, 201);
    const wrong = await call(`${inst.url}/owner/databases/verify`, {
      method: "POST",
      token,
      json: { challengeId: start.body.challengeId, challenge: new Uint8Array(32).toBase64() },
    });
    assert.equal(wrong.status, 403);
    const answer = await open(
      Uint8Array.fromBase64(start.body.sealedChallenge),
      pair.publicKey,
      pair.secretKey,
    );
    const unknown = await call(`${inst.url}/owner/databases/verify`, {
      method: "POST",
      token,
      json: { challengeId: "0".repeat(32), challenge: answer.toBase64() },
    });
    assert.equal(unknown.status, 404);
    const ok = await call(`${inst.url}/owner/databases/verify`, {
      method: "POST",
      token,
      json: { challengeId: start.body.challengeId, challenge: answer.toBase64() },
    });
    assert.equal(ok.status, 201);
    assert.match(ok.body.fingerprint, /^[0-9a-f]{64}$/);
    const again = await call(`${inst.url}/owner/databases`, {
      method: "POST",
      token,
      json: { name: "a", publicKey },
    });
    assert.equal(again.status, 409);
    const badKey = await call(`${inst.url}/owner/databases`, {
      method: "POST",
      token,
      json: { name: "a", publicKey: "AAAA" },
    });
    assert.equal(badKey.status, 400);
    const me = await call(`${inst.url}/owner/me`, { token });
    assert.equal(me.body.databases.length, 1);
  } finally {
    await inst.close();
  }
});

Deno.test("manifests: publish, read back as published, ownership and version rules", async () => {
  const inst = await startInstance();
  const token = inst.credentials.ownerToken;
  try {
    const db = await registerDatabase(inst);
    await publishForm(inst, db, "survey");
    const got = await call(`${inst.url}/forms/survey/manifest`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, manifestFor(inst, db, "survey"));
    assert.equal((await call(`${inst.url}/forms/nope/manifest`)).status, 404);

    const url = `${inst.url}/owner/forms/survey`;
    const v2 = { ...manifestFor(inst, db, "survey"), schemaVersion: 2 };
    assert.equal((await call(url, { method: "PUT", token, json: v2 })).status, 200);
    const stale = await call(url, { method: "PUT", token, json: manifestFor(inst, db, "survey") });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.error.code, "stale_schema_version");
    const wrongPath = await call(`${inst.url}/owner/forms/other`, {
      method: "PUT",
      token,
      json: v2,
    });
    assert.equal(wrongPath.status, 400);
    assert.equal((await call(url, { method: "PUT", json: v2 })).status, 401);

    // Another user: cannot publish to this user's key, nor take the form id.
    const bob = await call(`${inst.url}/admin/users`, {
      method: "POST",
      token: inst.credentials.adminToken,
      json: { name: "bob" },
    });
    const bobToken = bob.body.ownerToken;
    const bobManifest = {
      ...v2,
      recipient: { ...v2.recipient, userId: bob.body.user.id },
      schemaVersion: 3,
    };
    const notOwned = await call(url, { method: "PUT", token: bobToken, json: bobManifest });
    assert.equal(notOwned.status, 403);
    const bobDb = await registerDatabase(inst, bobToken);
    const taken = await call(url, {
      method: "PUT",
      token: bobToken,
      json: { ...bobManifest, recipient: { publicKey: bobDb.publicKey, userId: bob.body.user.id } },
    });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.error.code, "form_id_taken");
  } finally {
    await inst.close();
  }
});

Deno.test("queues: only the key's owner reads or acks; acks are idempotent", async () => {
  const inst = await startInstance();
  const token = inst.credentials.ownerToken;
  try {
    const db = await registerDatabase(inst);
    await publishForm(inst, db, "contact");
    const envelopes = [];
    for (let i = 0; i < 3; i++) {
      const e = await envelopeFor(db, "contact");
      envelopes.push(e);
      assert.equal(
        (await call(`${inst.url}/submissions`, { method: "POST", json: e })).status,
        200,
      );
    }
    const queueUrl = `${inst.url}/owner/queues/${db.fingerprint}`;
    const page1 = await call(`${queueUrl}?limit=2`, { token });
    assert.deepEqual(
      page1.body.items.map((i: { submissionId: string }) => i.submissionId),
      envelopes.slice(0, 2).map((e) => e.submissionId),
    );
    assert.ok(page1.body.nextCursor);
    const page2 = await call(`${queueUrl}?limit=2&after=${page1.body.nextCursor}`, { token });
    assert.deepEqual(page2.body.items.map((i: { submissionId: string }) => i.submissionId), [
      envelopes[2].submissionId,
    ]);
    assert.equal(page2.body.nextCursor, null);

    const bob = await call(`${inst.url}/admin/users`, {
      method: "POST",
      token: inst.credentials.adminToken,
      json: { name: "bob" },
    });
    // Another user's queue answers exactly like a key nobody registered (no existence oracle).
    const unknownUrl = `${inst.url}/owner/queues/${"0".repeat(64)}`;
    const unknown = await call(unknownUrl, { token: bob.body.ownerToken });
    assert.equal(unknown.status, 404);
    const foreign = await call(queueUrl, { token: bob.body.ownerToken });
    assert.deepEqual([foreign.status, foreign.body], [unknown.status, unknown.body]);
    const first = page1.body.items[0].seq;
    const ackAs = (url: string) =>
      call(`${url}/ack`, { method: "POST", token: bob.body.ownerToken, json: { seqs: [first] } });
    const bobAck = await ackAs(queueUrl);
    const unknownAck = await ackAs(unknownUrl);
    assert.deepEqual([bobAck.status, bobAck.body], [404, unknownAck.body]);
    assert.equal((await call(unknownUrl, { token })).status, 404);
    assert.equal((await call(queueUrl)).status, 401);
    assert.equal((await call(`${inst.url}/owner/queues/xyz`, { token })).status, 400);
    for (const limit of ["0", "501", "0x10", "1e2", "", "2.5"]) {
      const bad = await call(`${queueUrl}?limit=${limit}`, { token });
      assert.equal(bad.status, 400, `limit=${limit}`);
      assert.equal(bad.body.error.field, "limit");
    }

    const ack = await call(`${queueUrl}/ack`, {
      method: "POST",
      token,
      json: { seqs: [first, first] },
    });
    assert.deepEqual(ack.body, { acked: 1 }, "a position named twice counts once");
    const again = await call(`${queueUrl}/ack`, { method: "POST", token, json: { seqs: [first] } });
    assert.deepEqual(again.body, { acked: 0 }, "idempotent");
    const unused = await call(`${queueUrl}/ack`, { method: "POST", token, json: { seqs: [1] } });
    assert.deepEqual(unused.body, { acked: 0 }, "a position never used");
    const rest = await call(queueUrl, { token });
    assert.equal(rest.body.items.length, 2);
    for (const json of [{}, { seqs: [0] }, { seqs: [1.5] }, { seqs: ["1"] }, { seqs: 1 }]) {
      const bad = await call(`${queueUrl}/ack`, { method: "POST", token, json });
      assert.equal(bad.status, 400, JSON.stringify(json));
      assert.equal(bad.body.error.code, "invalid_request");
    }
    // An acked submission replayed by its sender still answers 200 and is not queued again.
    assert.equal(
      (await call(`${inst.url}/submissions`, { method: "POST", json: envelopes[0] })).status,
      200,
    );
    assert.equal((await call(queueUrl, { token })).body.items.length, 2);
  } finally {
    await inst.close();
  }
});

Deno.test("acking one version's position leaves a newer amendment queued", async () => {
  const inst = await startInstance();
  const token = inst.credentials.ownerToken;
  try {
    const db = await registerDatabase(inst);
    await publishForm(inst, db, "contact");
    const e = await envelopeFor(db, "contact");
    const { editToken } = (await call(`${inst.url}/submissions`, { method: "POST", json: e })).body;
    const amended = await envelopeFor(db, "contact", undefined, e.submissionId);
    await call(`${inst.url}/submissions/${e.submissionId}`, {
      method: "PUT",
      token: editToken,
      json: amended,
    });
    const queueUrl = `${inst.url}/owner/queues/${db.fingerprint}`;
    const queued = (await call(queueUrl, { token })).body.items;
    assert.deepEqual(queued.map((i: { version: number }) => i.version), [1, 2]);
    const ack = await call(`${queueUrl}/ack`, {
      method: "POST",
      token,
      json: { seqs: [queued[0].seq] },
    });
    assert.deepEqual(ack.body, { acked: 1 });
    const left = await call(queueUrl, { token });
    assert.deepEqual(left.body.items.map((i: { version: number }) => i.version), [2]);
  } finally {
    await inst.close();
  }
});

Deno.test("databases: a low-order public key (no box can be sealed to it) is a 400 on publicKey, not a 500", async () => {
  const inst = await startInstance();
  try {
    for (const publicKey of [new Uint8Array(32), Uint8Array.of(1, ...new Uint8Array(31))]) {
      const res = await call(`${inst.url}/owner/databases`, {
        method: "POST",
        token: inst.credentials.ownerToken,
        json: { name: "n", publicKey: publicKey.toBase64() },
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, "invalid_request");
      assert.equal(res.body.error.field, "publicKey");
      assert.match(res.body.error.message, /low-order/);
    }
    // Nothing was left half-registered: a usable key registers as usual.
    await registerDatabase(inst);
  } finally {
    await inst.close();
  }
});
