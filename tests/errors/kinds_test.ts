import assert from "node:assert/strict";
import {
  DomainError,
  Invalid,
  NotFound,
  RateLimited,
  Unauthenticated,
  UpstreamFailed,
} from "../../src/errors/index.ts";

Deno.test("domain errors carry code, message, field and kind, and no HTTP status", () => {
  const err = new NotFound("form_not_found", `No form "contact" in this vault`, "formId");
  assert.ok(err instanceof DomainError && err instanceof Error);
  assert.equal(err.name, "NotFound");
  assert.equal(err.kind, "not_found");
  assert.equal(err.code, "form_not_found");
  assert.equal(err.message, `No form "contact" in this vault`);
  assert.equal(err.field, "formId");
  assert.equal("status" in err, false);
  assert.equal(new Invalid("invalid_request", "Bad").field, undefined);
});

Deno.test("the kinds with more to say: challenge, retry-after, upstream status", () => {
  assert.equal(
    new Unauthenticated("unauthorized", "No token", { challenge: "Bearer" }).challenge,
    "Bearer",
  );
  assert.equal(new Unauthenticated("unauthorized", "Gone user").challenge, undefined);
  assert.equal(new RateLimited("rate_limited", "Slow down", 3).retryAfterSeconds, 3);
  const upstream = new UpstreamFailed("relay_error", "Relay answered 409", { upstreamStatus: 409 });
  assert.equal(upstream.upstreamStatus, 409);
  assert.equal(upstream.name, "UpstreamFailed");
});
