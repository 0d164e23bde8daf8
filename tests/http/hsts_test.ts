/**
 * The HSTS middleware: on https requests only, including responses whose headers are immutable.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { hsts, HSTS_VALUE } from "../../src/http/hsts.ts";

Deno.test("hsts: set on https responses (immutable headers too), never on http", async () => {
  const app = new Hono();
  app.use(hsts());
  app.get("/json", (c) => c.json({ ok: true }));
  // Response.redirect's headers are immutable: the middleware copies the response.
  app.get("/moved", () => Response.redirect("https://example.org/elsewhere", 302));
  const json = await app.request("https://forms.example.org/json");
  assert.equal(json.headers.get("strict-transport-security"), HSTS_VALUE);
  assert.deepEqual(await json.json(), { ok: true });
  const moved = await app.request("https://forms.example.org/moved");
  assert.equal(moved.status, 302);
  assert.equal(moved.headers.get("location"), "https://example.org/elsewhere");
  assert.equal(moved.headers.get("strict-transport-security"), HSTS_VALUE);
  for (const path of ["/json", "/moved"]) {
    const plain = await app.request(`http://forms.example.org${path}`);
    await plain.body?.cancel();
    assert.equal(plain.headers.get("strict-transport-security"), null);
  }
  assert.equal(HSTS_VALUE, "max-age=31536000");
});
