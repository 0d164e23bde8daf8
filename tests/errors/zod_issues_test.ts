import assert from "node:assert/strict";
import { z } from "zod";
import { Invalid, issuePath, validationError } from "../../src/errors/index.ts";

Deno.test("issuePath: the dotted path under a prefix", () => {
  assert.equal(issuePath({ path: ["age"] }, "values"), "values.age");
  assert.equal(issuePath({ path: ["fields", 0, "id"] }), "fields.0.id");
  assert.equal(issuePath({ path: [] }, "manifest"), "manifest");
  assert.equal(issuePath({ path: [] }), "");
});

Deno.test("validationError: the first zod issue as invalid_request naming its field", () => {
  const schema = z.object({ age: z.number(), name: z.string() }).strict();
  const wrongType = schema.safeParse({ age: "x", name: "a" });
  assert.ok(!wrongType.success);
  const err = validationError(wrongType.error, "values");
  assert.ok(err instanceof Invalid);
  assert.equal(err.code, "invalid_request");
  assert.equal(err.field, "values.age");
  assert.match(err.message, /^Invalid values\.age: /);
  const unknown = schema.safeParse({ age: 1, name: "a", extra: true });
  assert.ok(!unknown.success);
  const extra = validationError(unknown.error);
  assert.equal(extra.field, "extra");
  assert.equal(extra.message, `Unknown field "extra"`);
  const whole = z.string().safeParse(1);
  assert.ok(!whole.success);
  assert.equal(validationError(whole.error).field, undefined);
  assert.match(validationError(whole.error).message, /^Invalid body: /);
});
