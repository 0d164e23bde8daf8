/**
 * The record-file routes over HTTP: their OpenAPI documentation, and how they answer
 * malformed requests (a link the vault did not sign is a 403, whatever is wrong with it).
 */
import assert from "node:assert/strict";
import { call, startInstance } from "../../_support/server.ts";

Deno.test("file routes: /vault-files and the owner's file route are in the OpenAPI document", async () => {
  const inst = await startInstance();
  try {
    const doc = await call(`${inst.url}/openapi.json`);
    assert.equal(doc.status, 200);
    const link = doc.body.paths["/vault-files/{formId}/{hash}"]?.get;
    assert.ok(link, "OpenAPI lacks /vault-files/{formId}/{hash}");
    assert.equal(link.security, undefined, "the signed link is the authority, not a token");
    const params = Object.fromEntries(
      link.parameters.map((p: { name: string; in: string; required: boolean }) => [
        p.name,
        `${p.in}${p.required ? "" : "?"}`,
      ]),
    );
    assert.deepEqual(params, {
      formId: "path",
      hash: "path",
      size: "query",
      mime: "query",
      name: "query",
      exp: "query",
      sig: "query",
    });
    assert.equal(link.responses["200"].content["*/*"].schema.format, "binary");
    for (const status of ["403", "404", "422", "502"]) {
      assert.ok(link.responses[status], `no ${status} response`);
    }
    const owner = doc.body.paths["/vault/forms/{formId}/records/{recordId}/files/{fieldId}"]?.get;
    assert.ok(owner, "OpenAPI lacks the owner's file route");
    assert.deepEqual(owner.security, [{ ownerToken: [] }]);
    const body = owner.responses["200"].content["application/json"].schema;
    assert.deepEqual(Object.keys(body.properties).sort(), [
      "encrypted",
      "fileName",
      "mime",
      "sizeBytes",
      "url",
    ]);
  } finally {
    await inst.close();
  }
});

Deno.test("file routes: malformed links are 403 invalid_link; the owner route needs a token", async () => {
  const inst = await startInstance();
  try {
    const hash = "a".repeat(64);
    const query = "size=5&mime=text%2Fplain&name=a.txt&exp=9999999999&sig=" + "0".repeat(64);
    for (
      const path of [
        `/vault-files/form1/${hash}`, // no query at all
        `/vault-files/form1/${hash}?${query.replace("size=5&", "")}`, // a parameter missing
        `/vault-files/form1/${hash}?${query.replace("size=5", "size=five")}`,
        `/vault-files/form1/not-a-hash?${query}`,
        `/vault-files/${"x".repeat(200)}/${hash}?${query}`,
        `/vault-files/form1/${hash}?${query}`, // well-formed, signed by no one
      ]
    ) {
      const res = await call(inst.url + path);
      assert.equal(res.status, 403, path);
      assert.equal(res.body.error.code, "invalid_link", path);
    }
    const owner = `${inst.url}/vault/forms/form1/records/r1/files/doc`;
    assert.equal((await call(owner)).status, 401);
    const token = inst.credentials.ownerToken;
    const bad = await call(`${inst.url}/vault/forms/bad%20id/records/r1/files/doc`, { token });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, "formId");
    assert.equal((await call(owner, { token })).status, 404);
  } finally {
    await inst.close();
  }
});
