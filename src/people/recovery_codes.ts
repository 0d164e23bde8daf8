/**
 * Recovery codes: ten single-use codes shown once when a second factor is set up, each
 * `XXXX-XXXX-XXXX` from 30 characters no one misreads (digits 2-9 and letters without I, L, O
 * and U: about 59 bits a code), stored only as SHA-256 hashes of their normal form. What a
 * person types is normalised first: case, dashes and spaces do not matter.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { toHex, utf8Encode } from "../crypto/encoding.ts";

/** The characters of a code. */
export const RECOVERY_ALPHABET = "23456789ABCDEFGHJKMNPQRSTVWXYZ";
/** Codes made at once. */
export const RECOVERY_CODE_COUNT = 10;
const GROUPS = 3;
const GROUP = 4;
const LENGTH = GROUPS * GROUP;
/** The largest multiple of the alphabet's size under 256: bytes past it are drawn again. */
const FAIR = 256 - (256 % RECOVERY_ALPHABET.length);

function randomCode(): string {
  let code = "";
  while (code.length < LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(LENGTH * 2))) {
      if (byte < FAIR && code.length < LENGTH) {
        code += RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length];
      }
    }
  }
  return code.match(new RegExp(`.{${GROUP}}`, "g"))!.join("-");
}

/**
 * The code as it is hashed (12 characters of the alphabet, upper case, no separators), or
 * null when what was typed cannot be a recovery code.
 *
 * @example
 * ```ts
 * normaliseRecoveryCode(" abcd efgh-2345 "); // "ABCDEFGH2345"
 * ```
 */
export function normaliseRecoveryCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s\-‐‑–—]+/g, "");
  if (code.length !== LENGTH) return null;
  for (const c of code) if (!RECOVERY_ALPHABET.includes(c)) return null;
  return code;
}

/**
 * The stored form of a typed recovery code: SHA-256 (lowercase hex) of its normal form, or
 * null when it cannot be a code (then nothing needs looking up).
 *
 * @example
 * ```ts
 * const hash = recoveryCodeHash(form.code);
 * if (hash && await factors.useRecoveryCode(personId, hash)) signIn();
 * ```
 */
export function recoveryCodeHash(input: string): string | null {
  const code = normaliseRecoveryCode(input);
  return code === null ? null : toHex(sha256(utf8Encode(code)));
}

/**
 * Ten new recovery codes (to show once) and their hashes (to store, in the same order).
 *
 * @example
 * ```ts
 * const { codes, hashes } = newRecoveryCodes();
 * await factors.setRecoveryCodes(personId, hashes);
 * ```
 */
export function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) codes.add(randomCode());
  const list = [...codes];
  return { codes: list, hashes: list.map((code) => recoveryCodeHash(code)!) };
}
