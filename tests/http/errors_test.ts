import assert from "node:assert/strict";
import { Hono } from "hono";
import { errorResponse } from "../../src/http/errors.ts";

/** What the error handler answers when a route throws `err`. */
async function answer(err: unknown) {
  const app = new Hono();
  app.get("/", () => {
    throw err;
  });
  app.onError(errorResponse);
  const response = await app.fetch(new Request("http://t/"));
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    body: await response.json(),
  };
}

Deno.test("errorResponse: storage failures are 503 storage_unavailable with Retry-After", async () => {
  for (
    const message of [
      "No space left on device (os error 28)",
      "Read-only file system (os error 30)",
    ]
  ) {
    const { status, retryAfter, body } = await answer(new Error(message));
    assert.equal(status, 503);
    assert.equal(retryAfter, "30");
    assert.equal(body.error.code, "storage_unavailable");
  }
});

Deno.test("errorResponse: out of file descriptors is 503 server_busy, not a 500", async () => {
  const { status, retryAfter, body } = await answer(new Error("Too many open files (os error 24)"));
  assert.equal(status, 503);
  assert.equal(retryAfter, "5");
  assert.equal(body.error.code, "server_busy");
});
