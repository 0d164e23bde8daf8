/**
 * A bad envelope never blocks the queue, over real HTTP: hundreds of poison envelopes (every
 * kind of hostile sealed payload) queued ahead of good ones; each poison one is quarantined
 * with its code and a reason naming the field path, every good one becomes a record. Also
 * `mode` against the envelope's place in the submission, and files referenced but never
 * uploaded, as the owner sees them (API and CLI).
 */
import assert from "node:assert/strict";
import { seal as sealBytes } from "../../src/crypto/sealed_box.ts";
import {
  buildEnvelope,
  buildPayload,
  type Manifest,
  seal,
  type SubmissionPayload,
} from "../../src/sdk/mod.ts";
import { sealpost } from "../_support/cli.ts";
import { call, startInstance, type TestInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "age", label: "Age", kind: "number" },
  { id: "photo", label: "Photo", kind: "image" },
];

async function waitFor<T>(probe: () => Promise<T | null>, what: string, ms = 60_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const got = await probe();
    if (got !== null) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

interface QuarantineItem {
  id: string;
  submissionId: string;
  version: number;
  code: string;
  reason: string;
}

/** A sender: posts sealed bytes or payloads to the relay, and amends. */
function sender(inst: TestInstance, manifest: Manifest) {
  const key = Uint8Array.fromBase64(manifest.recipient.publicKey);
  const post = async (ciphertext: Uint8Array) => {
    const envelope = buildEnvelope(manifest, ciphertext.toBase64());
    const res = await call(`${inst.url}/submissions`, { method: "POST", json: envelope });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return { submissionId: envelope.submissionId, editToken: res.body.editToken as string };
  };
  const text = (plain: string) => sealBytes(new TextEncoder().encode(plain), key);
  const payload = (over: Partial<SubmissionPayload>, values: Record<string, unknown> = {}) => ({
    ...buildPayload(manifest, { name: "x" }),
    ...over,
    values: { name: "x", ...values },
  });
  return {
    post,
    postBytes: async (plain: Uint8Array) => await post(await sealBytes(plain, key)),
    postText: async (plain: string) => await post(await text(plain)),
    postPayload: async (p: unknown) => await post(await text(JSON.stringify(p))),
    payload,
    amend: async (submissionId: string, editToken: string, p: SubmissionPayload) => {
      const envelope = buildEnvelope(manifest, await seal(p, manifest.recipient.publicKey), {
        submissionId,
      });
      const res = await call(`${inst.url}/submissions/${submissionId}`, {
        method: "PUT",
        token: editToken,
        json: envelope,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    },
  };
}

const HASH = "ab".repeat(32);
const ownedRef = (hash: unknown) => ({
  url: `https://relay.example/blobs/u/${String(hash).slice(0, 64)}`,
  hash,
  owned: true,
  mime: "image/png",
  sizeBytes: 10,
});

/** Kinds of poison: how to send one, and the quarantine code and reason it must get. */
function poisons(s: ReturnType<typeof sender>) {
  const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
  const nested = (n: number): unknown => (n === 0 ? 1 : { a: nested(n - 1) });
  return [
    {
      send: () => s.postBytes(new Uint8Array([0xff, 0xfe, 0x7b, 0x80])),
      code: "invalid_payload",
      reason: /not valid UTF-8/,
    },
    { send: () => s.postText("42"), code: "invalid_payload", reason: /expected object/i },
    { send: () => s.postText("null"), code: "invalid_payload", reason: /expected object/i },
    { send: () => s.postText("[1,2]"), code: "invalid_payload", reason: /expected object/i },
    { send: () => s.postText("{not json"), code: "invalid_payload", reason: /not valid JSON/ },
    {
      send: () => s.postText(deep(200_000)),
      code: "invalid_payload",
      reason: /nested too deeply|expected object/,
    },
    {
      send: () => s.postPayload(s.payload({ formVersion: "1" as unknown as number })),
      code: "invalid_payload",
      reason: /^formVersion: /,
    },
    {
      send: () => s.postPayload(s.payload({ mode: "Delete" as "Create" })),
      code: "invalid_payload",
      reason: /^mode: /,
    },
    {
      send: () => s.postPayload({ ...s.payload({}), values: "nope" }),
      code: "invalid_payload",
      reason: /^values: /,
    },
    {
      send: () => s.postPayload(s.payload({}, { age: "x" })),
      code: "invalid_values",
      reason: /^values\.age: Expected a number/,
    },
    {
      send: () => s.postPayload(s.payload({}, { evil: 1 })),
      code: "invalid_values",
      reason: /^values\.evil: Unknown field "evil"/,
    },
    {
      send: () => s.postPayload(s.payload({}, { photo: ownedRef("XYZ") })),
      code: "invalid_values",
      reason: /^values\.photo: Invalid file reference: hash: /,
    },
    {
      send: () => s.postPayload(s.payload({}, { photo: ownedRef("a".repeat(100_000)) })),
      code: "invalid_values",
      reason: /^values\.photo: Invalid file reference: /,
    },
    {
      send: () => s.postPayload(s.payload({}, { photo: ownedRef(12) })),
      code: "invalid_values",
      reason: /^values\.photo: Invalid file reference: hash: /,
    },
    {
      send: () =>
        s.postPayload(s.payload({}, { photo: { ...ownedRef(HASH), extra: nested(5000) } })),
      code: "invalid_values",
      reason: /^values\.photo: Invalid file reference: A file reference nests more than 8/,
    },
    {
      send: () => s.postPayload(s.payload({}, { photo: ownedRef(HASH) })),
      code: "file_not_uploaded",
      reason: new RegExp(`^values\\.photo: file ${HASH} was never uploaded to the relay$`),
    },
    {
      send: () => s.postPayload(s.payload({}, { name: "x".repeat(400_000) })),
      code: "too_large",
      reason: /exceed/,
    },
    {
      send: () => s.postPayload(s.payload({ formVersion: 99 })),
      code: "unknown_form_version",
      reason: /no schema version 99/,
    },
    {
      send: () => s.postPayload(s.payload({ mode: "Update" })),
      code: "mode_mismatch",
      reason: /^mode: "Update" on the first version/,
    },
    {
      send: () => s.post(new Uint8Array(200)),
      code: "decryption_failed",
      reason: /./,
    },
  ];
}

Deno.test("ingest over HTTP: hundreds of poison envelopes ahead of good ones; every good one is a record", async () => {
  const inst = await startInstance();
  try {
    // Plain files: the poison envelopes carry plain file references.
    const { token, form } = await vaultForm(inst, "Poison", FIELDS, { files: "plain" });
    const manifest = (await call(`${inst.url}/forms/${form.formId}/manifest`)).body as Manifest;
    const s = sender(inst, manifest);
    const kinds = poisons(s);
    const ROUNDS = 15; // 20 kinds × 15 = 300 poison envelopes.
    const expected = new Map<string, (typeof kinds)[number]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of kinds) expected.set((await kind.send()).submissionId, kind);
    }
    const good: string[] = [];
    for (let i = 0; i < 20; i++) {
      const p = buildPayload(manifest, { name: `good ${i}`, age: i });
      good.push(
        (await s.post(
          await sealBytes(
            new TextEncoder().encode(JSON.stringify(p)),
            Uint8Array.fromBase64(manifest.recipient.publicKey),
          ),
        )).submissionId,
      );
    }

    const records = await waitFor(async () => {
      const res = await call(`${inst.url}/vault/forms/${form.formId}/records?limit=1000`, {
        token,
      });
      return res.body.items.length === good.length ? res.body.items : null;
    }, "the good records");
    assert.deepEqual(
      records.map((r: { _recordId: string }) => r._recordId).sort(),
      [...good].sort(),
    );
    const items = await waitFor(async () => {
      const res = await call(`${inst.url}/vault/quarantine`, { token });
      return res.body.items.length === expected.size ? res.body.items as QuarantineItem[] : null;
    }, "every poison envelope in quarantine");
    for (const item of items) {
      const kind = expected.get(item.submissionId);
      assert.ok(kind, `unexpected quarantine row ${item.id}`);
      assert.equal(item.code, kind.code, `${item.reason}`);
      assert.match(item.reason, kind.reason);
      assert.ok(item.reason.length <= 1000, "reasons are bounded");
    }
    // Nothing is left in the relay's queue: every envelope was settled and acknowledged.
    const me = await call(`${inst.url}/owner/me`, { token });
    const fp = me.body.databases[0].fingerprint;
    const queue = await call(`${inst.url}/owner/queues/${fp}`, { token });
    assert.deepEqual(queue.body.items, []);
    assert.equal((await call(`${inst.url}/healthz`)).status, 200);
  } finally {
    await inst.close();
  }
});

Deno.test("ingest over HTTP: mode must fit the envelope; an amendment needs a record", async () => {
  const inst = await startInstance();
  try {
    const { token, form } = await vaultForm(inst, "Modes", FIELDS);
    const manifest = (await call(`${inst.url}/forms/${form.formId}/manifest`)).body as Manifest;
    const s = sender(inst, manifest);
    const quarantine = async (n: number) =>
      await waitFor(async () => {
        const res = await call(`${inst.url}/vault/quarantine`, { token });
        return res.body.items.length === n ? res.body.items as QuarantineItem[] : null;
      }, `${n} quarantine rows`);

    // A Create sent as an amendment (PUT): the vault refuses it (the relay cannot read mode).
    const first = await s.postPayload(buildPayload(manifest, { name: "Ada" }));
    const recordUrl = `${inst.url}/vault/forms/${form.formId}/records/${first.submissionId}`;
    await waitFor(async () => (await call(recordUrl, { token })).status === 200 || null, "v1");
    await s.amend(first.submissionId, first.editToken, buildPayload(manifest, { name: "Eve" }));
    const [createAsAmend] = await quarantine(1);
    assert.equal(createAsAmend.code, "mode_mismatch");
    assert.equal(createAsAmend.id, `${first.submissionId}.2`);
    assert.match(createAsAmend.reason, /^mode: "Create" on amendment version 2/);
    assert.equal((await call(recordUrl, { token })).body.values.name, "Ada", "left alone");

    // An Update posted as a new submission, then amended: no record to update, so the
    // amendment waits in quarantine too (record_missing) rather than becoming a record.
    const orphan = await s.postPayload(buildPayload(manifest, { name: "Bob" }, { mode: "Update" }));
    await s.amend(
      orphan.submissionId,
      orphan.editToken,
      buildPayload(manifest, { name: "Bob 2" }, { mode: "Update" }),
    );
    const rows = await quarantine(3);
    const byId = new Map(rows.map((r) => [r.id, r]));
    assert.equal(byId.get(`${orphan.submissionId}.1`)?.code, "mode_mismatch");
    const missing = byId.get(`${orphan.submissionId}.2`)!;
    assert.equal(missing.code, "record_missing");
    assert.match(missing.reason, /has no record to update/);
    const orphanUrl = `${inst.url}/vault/forms/${form.formId}/records/${orphan.submissionId}`;
    assert.equal((await call(orphanUrl, { token })).status, 404);
  } finally {
    await inst.close();
  }
});

Deno.test("ingest over HTTP: a file referenced but never uploaded is quarantined; uploaded, the retry saves it", async () => {
  const inst = await startInstance();
  try {
    // Plain files: the test's reference names a plain upload.
    const { token, form } = await vaultForm(inst, "Files", FIELDS, { files: "plain" });
    const manifest = (await call(`${inst.url}/forms/${form.formId}/manifest`)).body as Manifest;
    const s = sender(inst, manifest);
    const bytes = new TextEncoder().encode("late bytes");
    const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)).toHex();
    const ref = { ...ownedRef(hash), sizeBytes: bytes.length };
    const sent = await s.postPayload(buildPayload(manifest, { name: "Ada", photo: ref }));
    const row = await waitFor(async () => {
      const res = await call(`${inst.url}/vault/quarantine`, { token });
      return res.body.items[0] as QuarantineItem ?? null;
    }, "the quarantine row");
    assert.equal(row.code, "file_not_uploaded");
    assert.equal(row.reason, `values.photo: file ${hash} was never uploaded to the relay`);

    // The owner sees it from the command line too.
    const env = { SEALPOST_URL: inst.url, SEALPOST_TOKEN: token };
    const listed = await sealpost(["quarantine", "list"], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`${row.id} .*file_not_uploaded: values\\.photo: file`));

    // The bytes arrive after all: the owner's retry turns the row into a record.
    const slot = await call(`${inst.url}/submissions/upload-slot`, {
      method: "POST",
      json: { recipientUserId: inst.credentials.userId, hash, mime: "image/png" },
    });
    const put = await call(slot.body.url, {
      method: "PUT",
      body: bytes,
      headers: { "content-type": "image/png" },
    });
    assert.equal(put.status, 201);
    const retry = await call(`${inst.url}/vault/quarantine/retry`, {
      method: "POST",
      token,
      json: { id: row.id },
    });
    assert.equal(retry.body.items[0].outcome, "record");
    const record = await call(
      `${inst.url}/vault/forms/${form.formId}/records/${sent.submissionId}`,
      { token },
    );
    assert.equal(record.body.values.photo.hash, hash);
  } finally {
    await inst.close();
  }
});
