import assert from "node:assert/strict";
import { sha256 } from "@noble/hashes/sha2.js";
import { toHex, utf8Encode } from "../../src/crypto/encoding.ts";
import {
  newRecoveryCodes,
  normaliseRecoveryCode,
  RECOVERY_ALPHABET,
  recoveryCodeHash,
} from "../../src/people/recovery_codes.ts";

Deno.test("recovery codes: ten distinct XXXX-XXXX-XXXX codes of the unambiguous alphabet, hashed in order", () => {
  const { codes, hashes } = newRecoveryCodes();
  assert.equal(codes.length, 10);
  assert.equal(new Set(codes).size, 10);
  for (const [i, code] of codes.entries()) {
    assert.match(code, /^[2-9A-HJKMNP-TV-Z]{4}-[2-9A-HJKMNP-TV-Z]{4}-[2-9A-HJKMNP-TV-Z]{4}$/);
    assert.equal(hashes[i], toHex(sha256(utf8Encode(code.replaceAll("-", "")))));
  }
  assert.equal(RECOVERY_ALPHABET.length, 30);
  assert.doesNotMatch(RECOVERY_ALPHABET, /[01ILOU]/);
});

Deno.test("recovery codes: every character of the alphabet turns up, none more than its share", () => {
  const counts = new Map<string, number>();
  for (let i = 0; i < 200; i++) {
    for (const code of newRecoveryCodes().codes) {
      for (const c of code.replaceAll("-", "")) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
  }
  assert.equal(counts.size, 30);
  const expected = (200 * 10 * 12) / 30;
  for (const [c, n] of counts) assert.ok(Math.abs(n - expected) < expected * 0.25, `${c}: ${n}`);
});

Deno.test("recovery codes: case, dashes and spaces do not matter; other input is not a code", () => {
  const { codes, hashes } = newRecoveryCodes();
  const plain = codes[0].replaceAll("-", "");
  for (
    const typed of [codes[0], plain, plain.toLowerCase(), ` ${codes[0].replaceAll("-", " ")} `]
  ) {
    assert.equal(normaliseRecoveryCode(typed), plain, typed);
    assert.equal(recoveryCodeHash(typed), hashes[0], typed);
  }
  for (const bad of ["", plain.slice(1), plain + "2", plain.slice(1) + "O", plain.slice(1) + "1"]) {
    assert.equal(normaliseRecoveryCode(bad), null, bad);
    assert.equal(recoveryCodeHash(bad), null, bad);
  }
});
