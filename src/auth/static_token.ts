/**
 * A token set in the configuration (`metrics.token`) rather than issued to a user: whether an
 * `Authorization` header presents it. The whole rest of the header after `Bearer ` is the
 * token (a configured value may hold any character), and the comparison is of SHA-256
 * digests in constant time, so it reveals neither content nor length.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { timingSafeEqual } from "../crypto/hmac.ts";

const encode = (text: string) => sha256(new TextEncoder().encode(text));

/**
 * Whether `authorization` is `Bearer <expected>`.
 *
 * @example
 * ```ts
 * presentsStaticToken("Bearer m3trics", "m3trics"); // true
 * presentsStaticToken(undefined, "m3trics"); // false
 * ```
 */
export function presentsStaticToken(authorization: string | undefined, expected: string): boolean {
  const given = authorization?.match(/^Bearer (.+)$/)?.[1] ?? "";
  return timingSafeEqual(encode(given), encode(expected));
}
