/**
 * Closing, reopening and deleting forms through the vault's owner API (role `all`): the relay
 * learns each change; a deleted form leaves the list while its records stay; the first run's
 * demo form, once deleted, is not made again.
 */
import { ownerGate } from "../_support/people.ts";
import assert from "node:assert/strict";
import { fetchManifest, submitForm } from "../../src/sdk/mod.ts";
import { call, startInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";

const FIELDS = [{ id: "name", label: "Name", kind: "text", required: true }];

Deno.test("vault: close, reopen and delete a form; records stay after the delete", async () => {
  const inst = await startInstance();
  try {
    const { token, form, pin, db } = await vaultForm(inst, "RSVP", FIELDS);
    const base = `${inst.url}/vault/forms/${form.formId}`;
    const manifest = await fetchManifest(form.formId, { relayUrl: inst.url, pin });
    const receipt = await submitForm(manifest, { name: "Ada" });
    await call(`${inst.url}/vault/ingest`, { method: "POST", token });

    const closed = await call(`${base}/close`, {
      method: "POST",
      token,
      json: { message: "  We are full.\r\nThank you! " },
    });
    assert.equal(closed.status, 200, JSON.stringify(closed.body));
    assert.equal(closed.body.closed.message, "We are full.\nThank you!");
    assert.match(closed.body.closed.closedAt, /^\d{4}-/);
    const refused = await submitForm(manifest, { name: "Bob" }).then(() => null, (e) => e);
    assert.equal(refused?.status, 410);
    assert.equal(refused?.code, "form_closed");
    assert.equal(refused?.serverMessage, "We are full.\nThank you!");
    assert.equal((await call(`${base}/close`, { method: "POST", token, json: {} })).status, 200);
    const shown = await call(base, { token });
    assert.equal(shown.body.closed.message, "", "closing again replaces the message");

    const reopened = await call(`${base}/reopen`, { method: "POST", token });
    assert.equal(reopened.status, 200);
    assert.equal(reopened.body.closed, null);
    assert.equal((await submitForm(manifest, { name: "Cy" })).submissionId.length, 32);
    await call(`${inst.url}/vault/ingest`, { method: "POST", token });

    const deleted = await call(base, { method: "DELETE", token });
    assert.equal(deleted.status, 204);
    assert.equal((await call(`${inst.url}/forms/${form.formId}/manifest`)).status, 404);
    const list = await call(`${inst.url}/vault/forms`, { token });
    assert.ok(!list.body.items.some((f: { formId: string }) => f.formId === form.formId));
    const records = await call(`${base}/records`, { token });
    assert.equal(records.status, 200);
    assert.equal(records.body.items.length, 2, "records are kept");
    const one = await call(`${base}/records/${receipt.submissionId}`, { token });
    assert.equal(one.body.values.name, "Ada");
    const after = await call(base, { token });
    assert.match(after.body.deletedAt, /^\d{4}-/);
    for (
      const [method, path, json] of [
        ["POST", `${base}/close`, {}],
        ["POST", `${base}/reopen`, undefined],
        ["POST", `${base}/publish`, undefined],
        ["PUT", base, { fields: FIELDS }],
        ["PATCH", base, { retentionDays: 5 }],
      ] as const
    ) {
      const res = await call(path, { method, token, json });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.error.code, "form_deleted");
    }
    assert.equal((await call(base, { method: "DELETE", token })).status, 204, "idempotent");
    const removed = await call(`${base}/records/${receipt.submissionId}`, {
      method: "DELETE",
      token,
    });
    assert.equal(removed.status, 204);

    // A form closed before its first publish is closed at the relay once published.
    const early = await call(`${inst.url}/vault/forms`, {
      method: "POST",
      token,
      json: { databaseId: db.id, title: "Later", fields: FIELDS },
    });
    const earlyBase = `${inst.url}/vault/forms/${early.body.formId}`;
    await call(`${earlyBase}/close`, { method: "POST", token, json: { message: "Soon" } });
    assert.equal((await call(`${earlyBase}/publish`, { method: "POST", token })).status, 200);
    const gone = await call(`${inst.url}/forms/${early.body.formId}/manifest`);
    assert.equal(gone.status, 410);
    assert.equal(gone.body.error.message, "Soon");

    assert.equal(
      (await call(`${inst.url}/vault/forms/nope`, { method: "DELETE", token })).status,
      404,
    );
    const long = await call(`${base}/close`, {
      method: "POST",
      token,
      json: { message: "x".repeat(501) },
    });
    assert.equal(long.status, 400);
  } finally {
    await inst.close();
  }
});

Deno.test("vault: the demo form, once deleted, is not made again", async () => {
  const inst = await startInstance();
  try {
    const vault = inst.server.vault!;
    const gate = await ownerGate(vault, inst.credentials.userId);
    const demo = await vault.bootstrap(gate);
    assert.equal(demo.deleted, undefined);
    assert.equal(await vault.demoFormId(), demo.formId);
    await vault.lifecycle.delete(gate, demo.formId);
    const again = await vault.bootstrap(gate);
    assert.equal(again.formId, demo.formId);
    assert.equal(again.deleted, true);
    assert.deepEqual(await vault.forms.list(gate), []);
    assert.equal((await vault.forms.list(gate, { deleted: true })).length, 1);
  } finally {
    await inst.close();
  }
});
