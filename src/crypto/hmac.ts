/**
 * HMAC-SHA256 and constant-time comparison, shared by webhook signing (vault), webhook
 * verification (SDK) and token checks (relay).
 *
 * @module
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { toHex, utf8Encode } from "./encoding.ts";

const bytes = (value: Uint8Array | string): Uint8Array =>
  typeof value === "string" ? utf8Encode(value) : value;

/**
 * HMAC-SHA256 of `data` under `key`, as lowercase hex (64 characters). Strings are taken as
 * their UTF-8 bytes.
 *
 * @example
 * ```ts
 * import { hmacSha256Hex } from "./hmac.ts";
 * hmacSha256Hex("secret", '{"a":1}'); // 64 lowercase hex characters
 * ```
 */
export function hmacSha256Hex(key: Uint8Array | string, data: Uint8Array | string): string {
  return toHex(hmac(sha256, bytes(key), bytes(data)));
}

/**
 * Compares two byte strings (or the UTF-8 bytes of two strings) in time that depends only on
 * their length, never on where they differ. Different lengths compare unequal at once (a
 * length is not a secret: every MAC and token compared here has a fixed length).
 *
 * @example
 * ```ts
 * import { timingSafeEqual } from "./hmac.ts";
 * timingSafeEqual("sha256=ab", "sha256=ab"); // true
 * ```
 */
export function timingSafeEqual(a: Uint8Array | string, b: Uint8Array | string): boolean {
  const x = bytes(a);
  const y = bytes(b);
  if (x.length !== y.length) return false;
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}
