import assert from "node:assert/strict";
import {
  CursorSchema,
  FormIdSchema,
  QuarantineIdSchema,
  QueuePositionSchema,
  RecordIdSchema,
  SubmissionIdSchema,
} from "../../src/http/ids.ts";
import { call, startInstance } from "../_support/server.ts";

const LONG = "a".repeat(3000);
const EMOJI = "😀".repeat(600);

Deno.test("ids: ASCII only, bounded, one syntax per kind", () => {
  for (const ok of ["f1", "A_b-9", "x".repeat(128)]) assert.ok(FormIdSchema.safeParse(ok).success);
  for (const bad of ["", "x".repeat(129), "a/b", "é", "😀", "a b", LONG, EMOJI, "..", "a.b"]) {
    assert.equal(FormIdSchema.safeParse(bad).success, false, bad.slice(0, 20));
  }
  assert.ok(RecordIdSchema.safeParse("r".repeat(64)).success);
  assert.equal(RecordIdSchema.safeParse("r".repeat(65)).success, false);
  assert.ok(SubmissionIdSchema.safeParse("0".repeat(32)).success);
  assert.equal(SubmissionIdSchema.safeParse("0".repeat(31) + "G").success, false);
  assert.ok(QuarantineIdSchema.safeParse(`${"a".repeat(32)}.2`).success);
  for (const bad of [`${"a".repeat(32)}.0`, `${"a".repeat(32)}`, `${"a".repeat(32)}.1.1`, LONG]) {
    assert.equal(QuarantineIdSchema.safeParse(bad).success, false, bad.slice(0, 40));
  }
});

Deno.test("cursors: KV cursors (base64url, padded) and queue positions up to 2^53 - 1", () => {
  assert.ok(
    CursorSchema.safeParse("AmFiYwACZDEAAjUwYjBjODNkLTMzNDgtNDkwMS05MDUxLWZjMGYyMjc5ZjQ4MwA=")
      .success,
  );
  for (const bad of ["", "!!!", "a b", "x".repeat(1025), "AAAA===", EMOJI]) {
    assert.equal(CursorSchema.safeParse(bad).success, false, bad.slice(0, 20));
  }
  assert.ok(QueuePositionSchema.safeParse(String(Number.MAX_SAFE_INTEGER)).success);
  for (const bad of ["", "-1", "1e3", "0x10", "9007199254740992", "1".repeat(17), "1.5"]) {
    assert.equal(QueuePositionSchema.safeParse(bad).success, false, bad);
  }
});

Deno.test("no 5xx from over-long, multi-byte or malformed ids and cursors, in paths, queries and bodies", async () => {
  const inst = await startInstance();
  const { ownerToken: token, adminToken, userId } = inst.credentials;
  try {
    const fp = "0".repeat(64);
    const hash = "0".repeat(64);
    const cases: [string, string, { token?: string; json?: unknown }][] = [];
    for (const id of [LONG, EMOJI, "%ff", "..", "a%2Fb"]) {
      const seg = id.startsWith("%") || id.includes("%2F") ? id : encodeURIComponent(id);
      cases.push(
        ["GET", `/forms/${seg}/manifest`, {}],
        ["PUT", `/owner/forms/${seg}`, { token, json: {} }],
        ["GET", `/owner/queues/${seg}`, { token }],
        ["POST", `/owner/queues/${seg}/ack`, { token, json: { seqs: [1] } }],
        ["PUT", `/submissions/${seg}`, { token: "x", json: {} }],
        ["GET", `/submissions/blob/${seg}/${hash}`, { token }],
        ["GET", `/submissions/blob/${userId}/${seg}`, { token }],
        ["GET", `/blobs/${seg}/${hash}?expires=1&sig=x`, {}],
        ["GET", `/vault/forms/${seg}`, { token }],
        ["GET", `/vault/forms/f/records/${seg}`, { token }],
        ["DELETE", `/vault/quarantine/${seg}`, { token }],
        ["GET", `/owner/webhooks/${seg}`, { token }],
        ["GET", `/owner/deliveries/${seg}`, { token }],
        ["GET", `/owner/forms/${seg}/webhooks`, { token }],
      );
      const q = encodeURIComponent(id);
      cases.push(
        ["GET", `/owner/queues/${fp}?after=${q}`, { token }],
        ["GET", `/vault/forms/f/records?cursor=${q}`, { token }],
        ["GET", `/vault/quarantine?formId=${q}`, { token }],
        ["GET", `/owner/webhooks/${"0".repeat(24)}/deliveries?cursor=${q}`, { token }],
        ["POST", `/vault/quarantine/retry`, { token, json: { id } }],
        ["POST", `/vault/forms`, { token, json: { databaseId: id, title: "t", fields: [] } }],
        ["POST", `/owner/databases/verify`, { token, json: { challengeId: id, challenge: id } }],
        ["POST", `/owner/databases`, { token, json: { name: "n", publicKey: id } }],
        ["POST", `/submissions/upload-slot`, { json: { recipientUserId: id, hash } }],
        ["POST", `/owner/blobs/claim`, { token, json: { hashes: [id] } }],
      );
    }
    // A display name is no id, but still bounded.
    cases.push(["POST", `/admin/users`, { token: adminToken, json: { name: LONG } }]);
    for (const [method, path, init] of cases) {
      const res = await call(`${inst.url}${path}`, { method, ...init });
      const what = `${method} ${path.slice(0, 120)}`;
      assert.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status}`);
      assert.equal(typeof res.body?.error?.code, "string", `${what}: ${JSON.stringify(res.body)}`);
    }
    // Well-formed cursors that are no cursor of this list: a page (KV reads on from there) or
    // a 400, never an exception.
    const db = await call(`${inst.url}/vault/databases`, {
      method: "POST",
      token,
      json: { name: "d" },
    });
    const created = await call(`${inst.url}/vault/forms`, {
      method: "POST",
      token,
      json: { databaseId: db.body.id, title: "t", fields: [] },
    });
    for (const cursor of ["AAAA", "_-_-", "A", "AA==", "____________"]) {
      const path = `/vault/forms/${created.body.formId}/records?cursor=${cursor}`;
      const res = await call(`${inst.url}${path}`, { token });
      assert.ok([200, 400].includes(res.status), `${cursor}: ${res.status}`);
    }
    assert.equal((await call(`${inst.url}/healthz`)).status, 200);
  } finally {
    await inst.close();
  }
});
