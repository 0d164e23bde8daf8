import assert from "node:assert/strict";
import { nestsDeeperThan } from "../../src/forms/_common.ts";
import { MAX_JSON_DEPTH } from "../../src/http/body.ts";
import { call, startInstance } from "../_support/server.ts";

/** JSON text of `depth` nested objects around 1, built without recursion. */
const nestedJson = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);

Deno.test("nestsDeeperThan: counts levels of arrays and objects, without recursion", () => {
  assert.equal(nestsDeeperThan(1, 0), false);
  assert.equal(nestsDeeperThan({}, 0), true);
  assert.equal(nestsDeeperThan({ a: [1] }, 1), true);
  assert.equal(nestsDeeperThan({ a: [1] }, 2), false);
  assert.equal(nestsDeeperThan(JSON.parse(nestedJson(3000)), 64), true);
  assert.equal(nestsDeeperThan(JSON.parse(nestedJson(64)), 64), false);
});

Deno.test("JSON bodies nested deeper than MAX_JSON_DEPTH are a 400, never a store exception", async () => {
  const inst = await startInstance();
  const token = inst.credentials.ownerToken;
  try {
    const db = await call(`${inst.url}/vault/databases`, {
      method: "POST",
      token,
      json: { name: "d" },
    });
    // A field definition keeps members it does not know; 6,000 levels overflowed Deno KV's
    // serializer (a 500) before the cap.
    for (const depth of [MAX_JSON_DEPTH + 1, 6000]) {
      const body = `{"databaseId":"${db.body.id}","title":"t","fields":[{"id":"a","label":"A",` +
        `"kind":"text","x":${nestedJson(depth)}}]}`;
      const res = await call(`${inst.url}/vault/forms`, {
        method: "POST",
        token,
        body,
        headers: { "content-type": "application/json" },
      });
      assert.equal(res.status, 400, `${depth}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, "invalid_json");
      assert.match(res.body.error.message, /more than 64 levels/);
    }
    const shallow = await call(`${inst.url}/vault/forms`, {
      method: "POST",
      token,
      json: { databaseId: db.body.id, title: "t", fields: [{ id: "a", label: "A", kind: "text" }] },
    });
    assert.equal(shallow.status, 201);
  } finally {
    await inst.close();
  }
});
