import assert from "node:assert/strict";
import { Hono } from "hono";
import { BufferedLines, requestLog } from "../../src/http/logger.ts";

Deno.test("request log: one JSON line with the route template, never ids, queries or tokens", async () => {
  const lines: string[] = [];
  const app = new Hono();
  app.use(requestLog((line) => lines.push(line)));
  app.put("/submissions/:id", (c) => c.json({ ok: true }, 201));
  const res = await app.request("/submissions/0123456789abcdef0123456789abcdef?token=secret", {
    method: "PUT",
    headers: { authorization: "Bearer spo_secret" },
    body: "ciphertext",
  });
  assert.equal(res.status, 201);
  assert.equal(lines.length, 1);
  const entry = JSON.parse(lines[0]);
  assert.equal(entry.method, "PUT");
  assert.equal(entry.path, "/submissions/:id");
  assert.equal(entry.status, 201);
  assert.equal(typeof entry.ms, "number");
  assert.ok(!/0123456789abcdef|secret|ciphertext/.test(lines[0]), lines[0]);
});

Deno.test("buffered lines: one write per batch, nothing lost on flush", async () => {
  const writes: string[] = [];
  const lines = new BufferedLines((text) => writes.push(text), 10);
  lines.write("a");
  lines.write("b");
  assert.equal(writes.length, 0, "batched");
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(writes, ["a\nb\n"]);
  lines.write("c");
  lines.flush();
  assert.deepEqual(writes, ["a\nb\n", "c\n"]);
  lines.flush();
  assert.equal(writes.length, 2, "an empty flush writes nothing");
});
