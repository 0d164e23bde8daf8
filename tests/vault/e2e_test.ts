import assert from "node:assert/strict";
import { buildEnvelope, buildPayload, fetchManifest, seal, submitForm } from "../../src/sdk/mod.ts";
import { call, startInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "age", label: "Age", kind: "number", integer: true },
  { id: "agree", label: "Agree", kind: "boolean" },
  { id: "born", label: "Born", kind: "date" },
  { id: "tags", label: "Tags", kind: "list" },
  { id: "where", label: "Where", kind: "geo" },
  { id: "photo", label: "Photo", kind: "image" },
];

async function waitFor<T>(probe: () => Promise<T | null>, what: string): Promise<T> {
  const end = Date.now() + 10_000;
  while (Date.now() < end) {
    const got = await probe();
    if (got !== null) return got;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

Deno.test("vault end to end: SDK submit, typed record, amend, stale version quarantined then fixed", async () => {
  const inst = await startInstance();
  try {
    const { token, db, form, pin } = await vaultForm(inst, "Survey", FIELDS);
    const manifest = await fetchManifest(form.formId, { relayUrl: inst.url, pin });
    assert.equal(manifest.recipient.publicKey, db.publicKey);
    const photo = {
      url: "https://example.com/cat.png",
      owned: false,
      fileName: "cat.png",
      mime: "image/png",
    };
    const receipt = await submitForm(manifest, {
      name: "Ada",
      age: "36",
      agree: "true",
      born: "1815-12-10",
      tags: "math,engines",
      where: "51.5,-0.12",
      photo,
    });
    const recordUrl = `${inst.url}/vault/forms/${form.formId}/records/${receipt.submissionId}`;
    const record = await waitFor(async () => {
      const res = await call(recordUrl, { token });
      return res.status === 200 ? res.body : null;
    }, "the record");
    assert.equal(record._recordId, receipt.submissionId);
    assert.equal(record._formId, form.formId);
    assert.match(record._savedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}\+00:00$/);
    assert.deepEqual(record.values, {
      name: "Ada",
      age: 36,
      agree: true,
      born: "1815-12-10",
      tags: ["math", "engines"],
      where: { lat: 51.5, lng: -0.12 },
      photo,
    });

    // Amend with the edit token: the same record is updated.
    const payload = buildPayload(manifest, { name: "Ada Lovelace", age: 36 }, { mode: "Update" });
    const envelope = buildEnvelope(manifest, await seal(payload, manifest.recipient.publicKey), {
      submissionId: receipt.submissionId,
    });
    const amended = await call(`${inst.url}/submissions/${receipt.submissionId}`, {
      method: "PUT",
      token: receipt.editToken,
      json: envelope,
    });
    assert.equal(amended.status, 200, JSON.stringify(amended.body));
    const updated = await waitFor(async () => {
      const res = await call(recordUrl, { token });
      return res.body?.values?.name === "Ada Lovelace" ? res.body : null;
    }, "the update");
    assert.equal(updated.values.age, 36);
    assert.equal(updated.values.tags, null);
    assert.equal(updated._createdAt, record._createdAt);
    const list = await call(`${inst.url}/vault/forms/${form.formId}/records`, { token });
    assert.equal(list.body.items.length, 1);

    // A payload naming a schema version the vault never archived is quarantined, not dropped.
    const stale = buildPayload({ ...manifest, schemaVersion: 2 }, { name: "Grace" });
    const staleEnvelope = buildEnvelope(manifest, await seal(stale, manifest.recipient.publicKey));
    const posted = await call(`${inst.url}/submissions`, { method: "POST", json: staleEnvelope });
    assert.equal(posted.status, 200);
    const quarantined = await waitFor(async () => {
      const res = await call(`${inst.url}/vault/quarantine`, { token });
      return res.body.items.length === 1 ? res.body.items[0] : null;
    }, "the quarantine row");
    assert.equal(quarantined.code, "unknown_form_version");
    assert.equal(quarantined.submissionId, staleEnvelope.submissionId);
    assert.match(quarantined.reason, /no schema version 2/);
    const early = await call(`${inst.url}/vault/quarantine/retry`, {
      method: "POST",
      token,
      json: { id: quarantined.id },
    });
    assert.equal(early.body.items[0].outcome, "quarantined");

    // The owner archives version 2; the retry turns the row into a record.
    const v2 = await call(`${inst.url}/vault/forms/${form.formId}`, {
      method: "PUT",
      token,
      json: { fields: FIELDS, publish: true },
    });
    assert.equal(v2.body.schemaVersion, 2);
    const versions = await call(`${inst.url}/vault/forms/${form.formId}/versions`, { token });
    assert.deepEqual(versions.body.items.map((v: { schemaVersion: number }) => v.schemaVersion), [
      1,
      2,
    ]);
    const retried = await call(`${inst.url}/vault/quarantine/retry`, {
      method: "POST",
      token,
      json: {},
    });
    assert.deepEqual(retried.body.items, [{ id: quarantined.id, outcome: "record" }]);
    const fixed = await call(
      `${inst.url}/vault/forms/${form.formId}/records/${staleEnvelope.submissionId}`,
      { token },
    );
    assert.equal(fixed.body.values.name, "Grace");
    assert.equal(fixed.body._schemaVersion, 2);
    const empty = await call(`${inst.url}/vault/quarantine`, { token });
    assert.equal(empty.body.items.length, 0);

    // The relay's queue is empty: everything was acked after it was saved.
    const queue = await call(`${inst.url}/owner/queues/${db.fingerprint}`, { token });
    assert.equal(queue.body.items.length, 0);
  } finally {
    await inst.close();
  }
});

Deno.test("vault records: owner create, edit, delete; invalid values are a 400", async () => {
  const inst = await startInstance();
  try {
    const { token, form } = await vaultForm(inst, "Survey", FIELDS);
    const base = `${inst.url}/vault/forms/${form.formId}/records`;
    const bad = await call(base, { method: "POST", token, json: { values: { age: 3 } } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, "values.name");
    const created = await call(base, {
      method: "POST",
      token,
      json: { values: { name: "Bo", age: 7 } },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body._submissionId, null);
    const edited = await call(`${base}/${created.body._recordId}`, {
      method: "PATCH",
      token,
      json: { values: { age: 8 } },
    });
    assert.equal(edited.status, 200);
    assert.deepEqual([edited.body.values.name, edited.body.values.age], ["Bo", 8]);
    assert.notEqual(edited.body._savedAt, created.body._savedAt);
    const removed = await call(`${base}/${created.body._recordId}`, { method: "DELETE", token });
    assert.equal(removed.status, 204);
    const gone = await call(`${base}/${created.body._recordId}`, { token });
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.code, "record_not_found");
    const exported = await call(`${inst.url}/vault/forms/${form.formId}/manifest`, { token });
    assert.equal(exported.body.signature.alg, "ed25519");
    assert.ok(!JSON.stringify(exported.body).match(/webhook/i));
    const other = await call(base, { token: "spo_nope" });
    assert.equal(other.status, 401);
  } finally {
    await inst.close();
  }
});
