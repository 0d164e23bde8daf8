import assert from "node:assert/strict";
import { call, startInstance } from "./_support/server.ts";

Deno.test("GET /healthz, JSON 404, and an OpenAPI 3.1 document of every route", async () => {
  const inst = await startInstance();
  try {
    const health = await call(`${inst.url}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(health.body.status, "ok");
    const missing = await call(`${inst.url}/nope`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, "not_found");
    const doc = await call(`${inst.url}/openapi.json`);
    assert.equal(doc.status, 200);
    assert.equal(doc.body.openapi, "3.1.0");
    for (
      const path of [
        "/submissions",
        "/submissions/{submissionId}",
        "/forms/{formId}/manifest",
        "/owner/forms/{formId}",
        "/owner/queues/{fingerprint}",
        "/owner/queues/{fingerprint}/ack",
        "/owner/databases",
        "/admin/users",
      ]
    ) {
      assert.ok(doc.body.paths[path], `OpenAPI lacks ${path}`);
    }
    const envelope =
      doc.body.paths["/submissions"].post.requestBody.content["application/json"].schema;
    assert.ok(envelope, "the envelope schema comes from the validating zod schema");
    // Closing, reopening and deleting forms, at the relay and in the vault.
    const paths = doc.body.paths;
    assert.ok(paths["/owner/forms/{formId}/close"].post);
    assert.ok(paths["/owner/forms/{formId}/reopen"].post);
    assert.ok(paths["/owner/forms/{formId}"].delete);
    assert.ok(paths["/vault/forms/{formId}/close"].post.requestBody);
    assert.ok(paths["/vault/forms/{formId}/reopen"].post);
    assert.ok(paths["/vault/forms/{formId}"].delete);
    assert.match(paths["/submissions"].post.responses["410"].description, /form_closed/);
    assert.ok(doc.body.components.schemas.VaultForm.properties.closed);
  } finally {
    await inst.close();
  }
});
