import assert from "node:assert/strict";
import { fetchManifest, submitForm, uploadFile } from "../../src/sdk/mod.ts";
import { sealpost } from "../_support/cli.ts";
import { envelopeFor } from "../_support/owner.ts";
import { call, startInstance, type TestInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";

const DAY_MS = 24 * 3600 * 1000;
const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "photo", label: "Photo", kind: "image", required: false },
];

/** A vault form with three records: r1 and r2 share file A, r3 has file B. */
async function threeRecords(inst: TestInstance) {
  const token = inst.credentials.ownerToken;
  const { form, pin } = await vaultForm(inst, "Retention", FIELDS);
  const manifest = await fetchManifest(form.formId, { relayUrl: inst.url, pin });
  const a = await uploadFile(manifest, { data: crypto.getRandomValues(new Uint8Array(1000)) });
  const b = await uploadFile(manifest, { data: crypto.getRandomValues(new Uint8Array(2000)) });
  const ids = [];
  for (const [name, photo] of [["r1", a], ["r2", a], ["r3", b]] as const) {
    ids.push((await submitForm(manifest, { name, photo })).submissionId);
  }
  const recordUrl = (id: string) => `${inst.url}/vault/forms/${form.formId}/records/${id}`;
  const end = Date.now() + 15_000;
  for (const id of ids) {
    while ((await call(recordUrl(id), { token })).status !== 200) {
      if (Date.now() > end) throw new Error("Records did not arrive");
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { token, formId: form.formId, ids, a: a.hash, b: b.hash, recordUrl };
}

/** Whether the relay still stores file `hash` (an owner read URL can be made). */
async function stored(inst: TestInstance, hash: string): Promise<boolean> {
  const res = await call(`${inst.url}/submissions/blob/${inst.credentials.userId}/${hash}`, {
    token: inst.credentials.ownerToken,
  });
  return res.status === 200;
}

Deno.test("retention: records older than the form's retention are deleted with delete events; their files are released and swept", async () => {
  const inst = await startInstance({ SEALPOST_BLOBS_ORPHAN_GRACE_SECONDS: "0" });
  try {
    const { token, formId, ids, a, b } = await threeRecords(inst);
    const settings = `${inst.url}/vault/forms/${formId}`;
    // Off by default.
    assert.equal((await call(settings, { token })).body.retentionDays, null);
    for (const bad of [0, 36_501, 1.5, "30"]) {
      const res = await call(settings, { method: "PATCH", token, json: { retentionDays: bad } });
      assert.equal(res.status, 400, `retentionDays ${bad}`);
      assert.equal(res.body.error.field, "retentionDays");
    }
    const unknown = await call(settings, { method: "PATCH", token, json: { keep: 3 } });
    assert.equal(unknown.status, 400);
    const other = await call(`${inst.url}/vault/forms/fnotmine0000`, {
      method: "PATCH",
      token,
      json: { retentionDays: 3 },
    });
    assert.equal(other.status, 404);
    // A webhook on delete events: deletes are consumed without a call, as a manual delete.
    const hook = await call(`${inst.url}/owner/forms/${formId}/webhooks`, {
      method: "POST",
      token,
      json: { url: "http://127.0.0.1:9/hook", events: ["delete"] },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));

    const set = await call(settings, { method: "PATCH", token, json: { retentionDays: 30 } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.retentionDays, 30);
    assert.equal(set.body.schemaVersion, 1, "a setting, not a new schema version");
    const vault = inst.server.vault!;
    const blobs = inst.server.blobs!;
    assert.equal((await vault.maintain(Date.now() + 29 * DAY_MS)).deleted, 0, "not yet");
    assert.equal((await blobs.sweep()).deleted, 0, "files still claimed");

    const pass = await vault.maintain(Date.now() + 31 * DAY_MS);
    assert.equal(pass.deleted, 3);
    assert.equal(pass.released.released, 3);
    assert.equal(pass.released.failed, 0);
    const left = await call(`${settings}/records`, { token });
    assert.deepEqual(left.body.items, []);
    const deliveries = await call(`${inst.url}/owner/webhooks/${hook.body.id}/deliveries`, {
      token,
    });
    assert.deepEqual(
      deliveries.body.items.map((d: { reason: string; status: string }) => [d.reason, d.status]),
      [["delete", "skipped"], ["delete", "skipped"], ["delete", "skipped"]],
    );
    assert.deepEqual(
      deliveries.body.items.map((d: { recordId: string }) => d.recordId).sort(),
      [...ids].sort(),
    );
    assert.equal((await blobs.sweep()).deleted, 2, "both files released and swept");
    assert.equal(await stored(inst, a), false);
    assert.equal(await stored(inst, b), false);
    // A second pass finds nothing; metrics count the deletions.
    assert.deepEqual((await vault.maintain(Date.now() + 60 * DAY_MS)).deleted, 0);
    const metrics = await (await fetch(`${inst.url}/metrics`)).text();
    assert.match(metrics, /sealpost_records_deleted_total\{reason="retention"\} 3\n/);
  } finally {
    await inst.close();
  }
});

Deno.test("manual delete releases files: a file two records share is swept only after both go", async () => {
  const inst = await startInstance({ SEALPOST_BLOBS_ORPHAN_GRACE_SECONDS: "0" });
  try {
    const { token, ids, a, b, recordUrl } = await threeRecords(inst);
    const blobs = inst.server.blobs!;
    assert.equal((await call(recordUrl(ids[0]), { method: "DELETE", token })).status, 204);
    assert.equal((await blobs.sweep()).deleted, 0, "r2 still refers to file A");
    assert.equal(await stored(inst, a), true);
    // An edit that drops a file releases it too.
    const edited = await call(recordUrl(ids[2]), {
      method: "PATCH",
      token,
      json: { values: { photo: null } },
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal((await inst.server.vault!.maintain()).released.released, 1);
    assert.equal((await blobs.sweep()).deleted, 1, "file B, dropped by the edit");
    assert.equal(await stored(inst, b), false);
    assert.equal(await stored(inst, a), true);
    assert.equal((await call(recordUrl(ids[1]), { method: "DELETE", token })).status, 204);
    assert.equal((await blobs.sweep()).deleted, 1);
    assert.equal(await stored(inst, a), false);
  } finally {
    await inst.close();
  }
});

Deno.test("discarding a quarantined envelope releases the files it claimed", async () => {
  const inst = await startInstance({ SEALPOST_BLOBS_ORPHAN_GRACE_SECONDS: "0" });
  try {
    const token = inst.credentials.ownerToken;
    const { form, pin } = await vaultForm(inst, "Quarantine", FIELDS);
    const manifest = await fetchManifest(form.formId, { relayUrl: inst.url, pin });
    const photo = await uploadFile(manifest, { data: crypto.getRandomValues(new Uint8Array(900)) });
    const key = { id: "", fingerprint: "", publicKey: manifest.recipient.publicKey };
    const envelope = await envelopeFor({ ...key, secretKey: new Uint8Array() }, form.formId, {
      values: { name: "late", photo },
      submittedAt: new Date().toISOString(),
      formVersion: 7,
      formSchema: "",
      mode: "Create",
    });
    assert.equal(
      (await call(`${inst.url}/submissions`, { method: "POST", json: envelope })).status,
      200,
    );
    let items: { id: string; code: string }[] = [];
    const end = Date.now() + 15_000;
    while (items.length === 0 && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 50));
      items = (await call(`${inst.url}/vault/quarantine`, { token })).body.items;
    }
    assert.equal(items[0]?.code, "unknown_form_version");
    assert.equal((await inst.server.blobs!.sweep()).deleted, 0, "claimed while quarantined");
    const gone = await call(`${inst.url}/vault/quarantine/${items[0].id}`, {
      method: "DELETE",
      token,
    });
    assert.equal(gone.status, 204);
    assert.equal((await inst.server.blobs!.sweep()).deleted, 1);
    assert.equal(await stored(inst, photo.hash), false);
  } finally {
    await inst.close();
  }
});

Deno.test("sealpost form update --retention-days N|off", async () => {
  const inst = await startInstance();
  try {
    const { form } = await vaultForm(inst, "CLI retention", FIELDS);
    const common = ["--url", inst.url, "--token", inst.credentials.ownerToken];
    const on = await sealpost(["form", "update", form.formId, "--retention-days", "90", ...common]);
    assert.equal(on.code, 0, on.stderr);
    assert.match(on.stdout, /retention 90d/);
    const json = await sealpost([
      "form",
      "update",
      form.formId,
      "--retention-days",
      "off",
      "--json",
      ...common,
    ]);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).retentionDays, null);
    const bad = await sealpost(["form", "update", form.formId, "--retention-days", "0", ...common]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Invalid --retention-days "0"/);
  } finally {
    await inst.close();
  }
});
