import assert from "node:assert/strict";
import { fromHex, toHex } from "../../src/crypto/encoding.ts";
import { CryptoError } from "../../src/crypto/errors.ts";
import {
  decodePublicKey,
  encodePublicKey,
  fingerprint,
  generateKeyPair,
  publicKeyFromSecretKey,
} from "../../src/crypto/keys.ts";

// RFC 7748 section 6.1, Alice.
const ALICE_SK = fromHex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
const ALICE_PK = fromHex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");

Deno.test("publicKeyFromSecretKey: RFC 7748 vector", () => {
  assert.deepEqual(publicKeyFromSecretKey(ALICE_SK), ALICE_PK);
});

Deno.test("fingerprint: lowercase hex SHA-256 of the raw key (python hashlib answer)", () => {
  assert.equal(
    fingerprint(ALICE_PK),
    "300c9c9603b92a4b39ed3958bf9240114804db4fd373012c0ca47432d63425ae",
  );
});

Deno.test("generateKeyPair: consistent, fresh, 32 bytes each", () => {
  const a = generateKeyPair();
  const b = generateKeyPair();
  assert.equal(a.publicKey.length, 32);
  assert.equal(a.secretKey.length, 32);
  assert.deepEqual(publicKeyFromSecretKey(a.secretKey), a.publicKey);
  assert.notEqual(toHex(a.secretKey), toHex(b.secretKey));
});

Deno.test("encodePublicKey / decodePublicKey", () => {
  const b64 = encodePublicKey(ALICE_PK);
  assert.equal(b64, "hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=");
  assert.deepEqual(decodePublicKey(b64), ALICE_PK);
  for (const bad of ["", "hSDw", b64.slice(0, -1), b64 + "AAAA", b64.replace("/", "_"), "AAAA"]) {
    assert.throws(() => decodePublicKey(bad), (e) => {
      assert.ok(e instanceof CryptoError);
      assert.equal(e.code, "invalid_key");
      assert.match(e.message, /^Public key "/);
      return true;
    }, bad);
  }
});

Deno.test("key helpers refuse keys of the wrong length", () => {
  for (const bad of [new Uint8Array(31), new Uint8Array(33)]) {
    assert.throws(() => fingerprint(bad), /Public key must be 32 bytes, got \d+ bytes/);
    assert.throws(() => encodePublicKey(bad), CryptoError);
    assert.throws(() => publicKeyFromSecretKey(bad), /Secret key must be 32 bytes/);
  }
});
