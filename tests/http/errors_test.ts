import assert from "node:assert/strict";
import { Hono } from "hono";
import {
  Conflict,
  Forbidden,
  Gone,
  Invalid,
  NotFound,
  QuotaExceeded,
  RateLimited,
  TooLarge,
  Unauthenticated,
  Unavailable,
  Unprocessable,
  UpstreamFailed,
} from "../../src/errors/index.ts";
import { ApiError, errorResponse, httpError, KIND_STATUS } from "../../src/http/errors.ts";

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

Deno.test("errorResponse: each kind of domain error has its status and the JSON error shape", async () => {
  const cases: [Error, number][] = [
    [new Invalid("invalid_request", "Bad ciphertext", "ciphertext"), 400],
    [new Unauthenticated("unauthorized", "No token"), 401],
    [new Forbidden("invalid_edit_token", "Wrong edit token"), 403],
    [new NotFound("form_not_found", "No form", "formId"), 404],
    [new Conflict("form_exists", "Taken"), 409],
    [new Gone("edit_window_closed", "Over"), 410],
    [new TooLarge("record_too_large", "Too big"), 413],
    [new QuotaExceeded("quota_exceeded", "Full"), 413],
    [new Unprocessable("file_undecryptable", "Altered"), 422],
    [new RateLimited("rate_limited", "Slow down", 7), 429],
    [new UpstreamFailed("relay_unreachable", "No answer"), 502],
    [new Unavailable("server_busy", "Busy", 5), 503],
  ];
  const kinds = new Set<string>();
  for (const [err, status] of cases) {
    const answered = await answer(err);
    assert.equal(answered.status, status, err.name);
    assert.equal(KIND_STATUS[(err as Invalid).kind], status);
    const { code, message, field } = err as Invalid;
    assert.deepEqual(answered.body, { error: { code, message, ...(field ? { field } : {}) } });
    kinds.add((err as Invalid).kind);
  }
  assert.deepEqual([...kinds].sort(), Object.keys(KIND_STATUS).sort(), "every kind is answered");
});

Deno.test("errorResponse: the headers a kind asks for, and only those", async () => {
  const headersOf = async (err: Error) => {
    const app = new Hono();
    app.get("/", () => {
      throw err;
    });
    app.onError(errorResponse);
    const response = await app.fetch(new Request("http://t/"));
    await response.body?.cancel();
    return response.headers;
  };
  const bearer = await headersOf(new Unauthenticated("unauthorized", "x", { challenge: "Bearer" }));
  assert.equal(bearer.get("www-authenticate"), "Bearer");
  const plain = await headersOf(new Unauthenticated("unauthorized", "The user is gone"));
  assert.equal(plain.get("www-authenticate"), null);
  assert.equal((await headersOf(new RateLimited("rate_limited", "x", 7))).get("retry-after"), "7");
  assert.equal((await headersOf(new Unavailable("server_busy", "x", 5))).get("retry-after"), "5");
  assert.equal((await headersOf(new NotFound("form_not_found", "x"))).get("retry-after"), null);
  const range = await headersOf(
    new ApiError(416, "range_not_satisfiable", "x", undefined, { "Content-Range": "bytes */9" }),
  );
  assert.equal(range.get("content-range"), "bytes */9");
});

Deno.test("errorResponse: an upstream's client error passes on with its status, else 502", async () => {
  const upstream = (status?: number) =>
    answer(new UpstreamFailed("relay_error", "Relay answered", { upstreamStatus: status }));
  assert.equal((await upstream(409)).status, 409);
  assert.equal((await upstream(401)).status, 401);
  assert.equal((await upstream(503)).status, 502);
  assert.equal((await upstream()).status, 502);
  assert.equal((await upstream(409)).body.error.code, "relay_error");
});

Deno.test("errorResponse: unknown errors are a 500 internal, never their message", async () => {
  const logged: string[] = [];
  const log = console.error;
  console.error = (line: string) => logged.push(line);
  try {
    const { status, body } = await answer(new Error("secret detail"));
    assert.equal(status, 500);
    assert.deepEqual(body, { error: { code: "internal", message: "Internal server error" } });
  } finally {
    console.error = log;
  }
  assert.equal(logged.length, 1, "logged once, for the operator");
  assert.match(logged[0], /secret detail/);
});

Deno.test("httpError: null for what is no domain error or ApiError", () => {
  assert.equal(httpError(new Error("x")), null);
  assert.equal(httpError("x"), null);
  assert.equal(httpError(new Conflict("conflict", "Changed"))?.status, 409);
});
