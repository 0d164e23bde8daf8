/** The sealed box's XSalsa20-Poly1305 against @noble's own xsalsa20poly1305, byte for byte. */
import assert from "node:assert/strict";
import { xsalsa20poly1305 } from "@noble/ciphers/salsa.js";
import { secretboxOpen, secretboxSeal } from "../../src/crypto/_secretbox.ts";

const key = Uint8Array.from({ length: 32 }, (_, i) => i * 3 + 1);
const nonce = Uint8Array.from({ length: 24 }, (_, i) => 200 - i);

Deno.test("secretbox equals @noble xsalsa20poly1305 for lengths 0 to 300 and 64 KiB", () => {
  for (const n of [...Array(301).keys(), 65_536, 65_537]) {
    const m = Uint8Array.from({ length: n }, (_, i) => (i * 37 + 11) & 255);
    const expected = xsalsa20poly1305(key, nonce).encrypt(m);
    const out = new Uint8Array(n + 16);
    secretboxSeal(key, nonce, m, out);
    assert.deepEqual(out, expected, `length ${n}`);
    assert.deepEqual(secretboxOpen(key, nonce, expected), m, `length ${n}`);
  }
});

Deno.test("secretboxOpen refuses altered, truncated and foreign boxes", () => {
  const m = new TextEncoder().encode("attack at dawn, bring snacks");
  const box = xsalsa20poly1305(key, nonce).encrypt(m);
  for (let i = 0; i < box.length; i++) {
    const bad = box.slice();
    bad[i] ^= 0x20;
    assert.equal(secretboxOpen(key, nonce, bad), null, `byte ${i}`);
  }
  for (let n = 0; n < box.length; n++) {
    assert.equal(secretboxOpen(key, nonce, box.subarray(0, n)), null, `length ${n}`);
  }
  const otherNonce = nonce.slice();
  otherNonce[23] ^= 1;
  assert.equal(secretboxOpen(key, otherNonce, box), null);
});
