import assert from "node:assert/strict";
import { Nacl } from "../_support/nacl.ts";
import { newSubmissionId } from "../_support/owner.ts";
import { call, startInstance } from "../_support/server.ts";

Deno.test("libsodium end to end: key registered, envelope sealed and opened by python3-nacl", async () => {
  const inst = await startInstance();
  const nacl = new Nacl();
  const token = inst.credentials.ownerToken;
  try {
    // The owner's key pair and the proof of possession are libsodium's.
    const pair = await nacl.keyPair();
    const publicKey = pair.publicKey.toBase64();
    const started = await call(`${inst.url}/owner/databases`, {
      method: "POST",
      token,
      json: { name: "nacl", publicKey },
    });
    const answer = await nacl.open(
      Uint8Array.fromBase64(started.body.sealedChallenge),
      pair.publicKey,
      pair.secretKey,
    );
    const db = await call(`${inst.url}/owner/databases/verify`, {
      method: "POST",
      token,
      json: { challengeId: started.body.challengeId, challenge: answer.toBase64() },
    });
    assert.equal(db.status, 201);
    const manifest = {
      formId: "interop",
      schemaVersion: 1,
      title: "Interop",
      recipient: { publicKey, userId: inst.credentials.userId },
      fields: [],
      relayUrl: inst.url,
    };
    assert.equal(
      (await call(`${inst.url}/owner/forms/interop`, { method: "PUT", token, json: manifest }))
        .status,
      200,
    );

    // The sender's sealed box is libsodium's.
    const payload = new TextEncoder().encode(JSON.stringify({
      values: { note: "héllo ✓" },
      submittedAt: new Date().toISOString(),
      formVersion: 1,
      formSchema: "",
      mode: "Create",
    }));
    const sealed = await nacl.seal(payload, pair.publicKey);
    const submissionId = newSubmissionId();
    const posted = await call(`${inst.url}/submissions`, {
      method: "POST",
      json: {
        submissionId,
        formId: "interop",
        recipientPubkey: publicKey,
        submitterId: null,
        ciphertext: sealed.toBase64(),
      },
    });
    assert.equal(posted.status, 200);

    const queue = await call(`${inst.url}/owner/queues/${db.body.fingerprint}`, { token });
    assert.equal(queue.body.items[0].submissionId, submissionId);
    const opened = await nacl.open(
      Uint8Array.fromBase64(queue.body.items[0].ciphertext),
      pair.publicKey,
      pair.secretKey,
    );
    assert.deepEqual(opened, payload);
  } finally {
    await nacl.close();
    await inst.close();
  }
});
