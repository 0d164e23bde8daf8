import assert from "node:assert/strict";
import { presentsStaticToken } from "../../src/auth/static_token.ts";

Deno.test("presentsStaticToken: exactly `Bearer <token>`, the whole rest of the header", () => {
  assert.equal(presentsStaticToken("Bearer m3trics token", "m3trics token"), true);
  for (const header of [undefined, "", "Bearer m3trics", "bearer m3trics token", "m3trics token"]) {
    assert.equal(presentsStaticToken(header, "m3trics token"), false, String(header));
  }
});
