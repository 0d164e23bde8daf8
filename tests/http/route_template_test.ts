import assert from "node:assert/strict";
import { Hono } from "hono";
import { routeTemplate } from "../../src/http/route_template.ts";

Deno.test("routeTemplate: the handler's template, even with middleware registered after it", async () => {
  const seen: string[] = [];
  const app = new Hono();
  app.use(async (c, next) => {
    await next();
    seen.push(routeTemplate(c));
  });
  app.get("/forms/:formId/manifest", (c) => c.text("ok"));
  app.get("/locked", () => {
    throw new Error("Refused");
  });
  app.use(async (_c, next) => await next()); // e.g. CORS, mounted after some routes
  app.get("/submissions/:submissionId", (c) => c.text("ok"));
  app.onError((_e, c) => c.text("no", 401));
  await app.request("/forms/abc/manifest");
  await app.request("/locked");
  await app.request("/submissions/123");
  await app.request("/nothing/here");
  assert.deepEqual(seen, [
    "/forms/:formId/manifest",
    "/locked",
    "/submissions/:submissionId",
    "/*",
  ]);
});
