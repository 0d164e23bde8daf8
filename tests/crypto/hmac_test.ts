import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { hmacSha256Hex, timingSafeEqual } from "../../src/crypto/hmac.ts";

Deno.test("hmacSha256Hex: RFC 4231 test cases 1 and 2", () => {
  assert.equal(
    hmacSha256Hex(new Uint8Array(20).fill(0x0b), "Hi There"),
    "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7",
  );
  assert.equal(
    hmacSha256Hex("Jefe", "what do ya want for nothing?"),
    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
  );
});

Deno.test("hmacSha256Hex agrees with node:crypto on bytes and strings", () => {
  const body = new TextEncoder().encode('{"_recordId":"r1","name":"Grüße"}');
  const expected = createHmac("sha256", "s3cret").update(body).digest("hex");
  assert.equal(hmacSha256Hex("s3cret", body), expected);
  assert.equal(hmacSha256Hex("s3cret", '{"_recordId":"r1","name":"Grüße"}'), expected);
});

Deno.test("timingSafeEqual", () => {
  assert.equal(timingSafeEqual("abc", "abc"), true);
  assert.equal(timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2])), true);
  assert.equal(timingSafeEqual("", ""), true);
  assert.equal(timingSafeEqual("abc", "abd"), false);
  assert.equal(timingSafeEqual("abc", "ab"), false);
  assert.equal(timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3])), false);
  assert.equal(timingSafeEqual("é", new Uint8Array([0xc3, 0xa9])), true);
});
