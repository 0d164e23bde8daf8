import assert from "node:assert/strict";
import { nestsDeeperThan } from "../../src/forms/_common.ts";
import { Hono } from "hono";
import { validator } from "hono/validator";
import { jsonBody, MAX_JSON_DEPTH } from "../../src/http/body.ts";
import { manifestFor, registerDatabase } from "../_support/owner.ts";
import { call, startInstance } from "../_support/server.ts";

/** A running instance with one vault database of its owner. */
async function withDatabase() {
  const inst = await startInstance();
  const token = inst.credentials.ownerToken;
  const db = await call(`${inst.url}/vault/databases`, {
    method: "POST",
    token,
    json: { name: "d" },
  });
  return { inst, token, db };
}

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
  const { inst, token, db } = await withDatabase();
  try {
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

Deno.test("rows whose size the client decides: over Deno KV's 64 KiB a 413, never a 500", async () => {
  const { inst, token, db } = await withDatabase();
  try {
    // Found by the adversarial suite: a field definition keeps members it does not know.
    const big = [{ id: "a", label: "A", kind: "text", note: "x".repeat(70_000) }];
    const form = await call(`${inst.url}/vault/forms`, {
      method: "POST",
      token,
      json: { databaseId: db.body.id, title: "t", fields: big },
    });
    assert.equal(form.status, 413, JSON.stringify(form.body));
    assert.equal(form.body.error.code, "form_too_large");
    const small = await call(`${inst.url}/vault/forms`, {
      method: "POST",
      token,
      json: { databaseId: db.body.id, title: "t", fields: [{ id: "a", label: "A", kind: "text" }] },
    });
    assert.equal(small.status, 201);
    const update = await call(`${inst.url}/vault/forms/${small.body.formId}`, {
      method: "PUT",
      token,
      json: { fields: big },
    });
    assert.equal(update.status, 413);
    // A webhook's template alone may be 64 Ki characters; with the rest of its row it is more.
    const hooks = `${inst.url}/owner/forms/${small.body.formId}/webhooks`;
    const webhook = await call(hooks, {
      method: "POST",
      token,
      json: {
        url: "http://127.0.0.1:9/hook",
        mode: "json_template",
        template: `{"a":"{{a}}","pad":"${"p".repeat(65_000)}"}`,
        headers: Array.from({ length: 20 }, (_, i) => `X-H${i}: ${"v".repeat(4000)}`),
      },
    });
    assert.equal(webhook.status, 413, JSON.stringify(webhook.body));
    assert.equal(webhook.body.error.code, "webhook_too_large");
    // A manifest within max_manifest_bytes as JSON, but stored two bytes a character: each
    // label holds a character above U+00FF.
    const relayDb = await registerDatabase(inst);
    const manifest = {
      ...manifestFor(inst, relayDb, "wide"),
      fields: Array.from({ length: 116 }, (_, i) => ({
        id: `f${i}`,
        kind: "text",
        label: "€" + "x".repeat(480),
      })),
    };
    const published = await call(`${inst.url}/owner/forms/wide`, {
      method: "PUT",
      token,
      json: manifest,
    });
    assert.equal(published.status, 413, JSON.stringify(published.body));
    assert.equal(published.body.error.code, "manifest_too_large");
    assert.equal((await call(`${inst.url}/healthz`)).status, 200);
  } finally {
    await inst.close();
  }
});

Deno.test("jsonBody: the body is read and parsed once; the validator after it parses Hono's cached text", async () => {
  const app = new Hono();
  let stringified = 0;
  app.post(
    "/",
    jsonBody(() => 1024, { code: "payload_too_large", message: "too large" }),
    validator("json", (value) => value),
    async (c) => {
      const json = c.req.valid("json");
      return c.json({ json, text: await c.req.text() });
    },
  );
  // Were only a parsed value cached, Hono would stringify it to answer c.req.json().
  const stringify = JSON.stringify;
  JSON.stringify = ((...args: Parameters<typeof stringify>) => {
    stringified++;
    return stringify(...args);
  }) as typeof stringify;
  let res: Response;
  const body = '{"a": [1, "ü"], "b": null}';
  try {
    res = await app.request("/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
  } finally {
    JSON.stringify = stringify;
  }
  assert.equal(res.status, 200);
  // One stringify: the answer's own (c.json).
  assert.equal(stringified, 1);
  assert.deepEqual(await res.json(), { json: { a: [1, "ü"], b: null }, text: body });
});
