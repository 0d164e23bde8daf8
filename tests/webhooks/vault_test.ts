import { vaultForm } from "../_support/vault.ts";
import assert from "node:assert/strict";
import { fetchManifest, submitForm, verifyWebhookSignature } from "../../src/sdk/mod.ts";
import { call, startInstance } from "../_support/server.ts";
import { startReceiver, until } from "./_harness.ts";

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "age", label: "Age", kind: "number" },
  { id: "where", label: "Where", kind: "geo" },
  { id: "photo", label: "Photo", kind: "image" },
];
const SECRET = "vault-e2e-signing-secret-0123";

Deno.test({
  name: "vault to webhook: sealed submission, hand edit and delete; owned file as a fresh blob URL",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const receiver = startReceiver(() => new Response(null, { status: 204 }));
    const inst = await startInstance();
    try {
      const token = inst.credentials.ownerToken;
      // Plain files: the webhook carries the relay's read URL of the bytes as sent.
      const { form, pin } = await vaultForm(inst, "Survey", FIELDS, { files: "plain" });
      const formId = form.formId;
      const hook = await call(`${inst.url}/owner/forms/${formId}/webhooks`, {
        method: "POST",
        token,
        json: { url: receiver.url, signingSecret: SECRET, events: ["create", "update", "delete"] },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));

      // A sender submits with an uploaded photo; the vault ingests and saves the record.
      const manifest = await fetchManifest(formId, { relayUrl: inst.url, pin });
      const bytes = crypto.getRandomValues(new Uint8Array(2048));
      const before = Math.floor(Date.now() / 1000);
      const receipt = await submitForm(manifest, { name: "Ada", age: "36", where: "51.5,-0.12" }, {
        files: { photo: { data: bytes, mime: "image/png", fileName: "ada.png" } },
      });
      const [inserted] = await receiver.waitFor(1);
      assert.ok(
        verifyWebhookSignature(inserted.raw, inserted.headers.get("x-service-signature"), SECRET),
      );
      const body = JSON.parse(inserted.text);
      assert.deepEqual(Object.keys(body), [
        "_recordId",
        "_formId",
        "_savedAt",
        "_reason",
        "name",
        "age",
        "where",
        "photo",
      ]);
      assert.equal(body._recordId, receipt.submissionId);
      assert.equal(body._formId, formId);
      assert.equal(body._reason, "insert");
      assert.match(body._savedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}\+00:00$/);
      assert.equal(body.name, "Ada");
      assert.equal(body.age, 36);
      assert.equal(body.where, "51.5,-0.12");
      // The photo is a fresh pre-signed GET URL that serves the uploaded bytes, no token needed,
      // for webhooks.blob_url_lifetime_seconds (default 7 days).
      assert.ok(body.photo.startsWith(`${inst.url}/blobs/${inst.credentials.userId}/`));
      const expires = Number(new URL(body.photo).searchParams.get("expires"));
      assert.ok(expires >= before + 604800 && expires <= Math.ceil(Date.now() / 1000) + 604800);
      const photo = await fetch(body.photo);
      assert.equal(photo.status, 200);
      assert.deepEqual(new Uint8Array(await photo.arrayBuffer()), bytes);

      // Edit and delete by hand: update delivered, delete consumed without a call.
      const recordUrl = `${inst.url}/vault/forms/${formId}/records/${receipt.submissionId}`;
      const edited = await call(recordUrl, {
        method: "PATCH",
        token,
        json: { values: { age: 37 } },
      });
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      const [, updated] = await receiver.waitFor(2);
      assert.equal(JSON.parse(updated.text)._reason, "update");
      assert.equal(JSON.parse(updated.text)._recordId, receipt.submissionId);
      assert.equal(JSON.parse(updated.text).age, 37);
      assert.equal((await call(recordUrl, { method: "DELETE", token })).status, 204);
      const deliveries = `${inst.url}/owner/webhooks/${hook.body.id}/deliveries`;
      const items = await until(async () => {
        const res = await call(deliveries, { token });
        return res.body.items.length === 3 ? res.body.items : null;
      }, "three deliveries");
      assert.deepEqual(
        items.map((d: { reason: string; status: string }) => [d.reason, d.status]),
        [["delete", "skipped"], ["update", "delivered"], ["insert", "delivered"]],
      );
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(receiver.received.length, 2);
    } finally {
      await inst.close();
      await receiver.close();
    }
  },
});
