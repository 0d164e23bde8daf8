/**
 * Blob keys: `{recipientUserId}/{hash}`, and the syntax of both parts. Every path segment the
 * blob store builds comes from a key that passed {@linkcode assertBlobKey}, so no request can
 * name a file outside the store.
 *
 * @module
 */

import type { BlobKey } from "../store/ports/blob_meta.ts";
import { HASH_PATTERN, USER_ID_PATTERN } from "../http/ids.ts";

export { HASH_PATTERN, USER_ID_PATTERN };
export type { BlobKey };

/** Names the store keeps for itself; no user id may take them (in any letter case). */
const RESERVED = new Set(["tmp"]);

/**
 * Whether `userId` can name a user's folder of blobs.
 *
 * @example
 * ```ts
 * isBlobUserId("3f2a9c0d1e4b5a69"); // true
 * isBlobUserId("../etc"); // false
 * ```
 */
export function isBlobUserId(userId: string): boolean {
  return USER_ID_PATTERN.test(userId) && !RESERVED.has(userId.toLowerCase());
}

/**
 * Throws unless `key` is a valid blob key.
 *
 * @example
 * ```ts
 * assertBlobKey({ userId: "3f2a9c", hash: "e3b0".padEnd(64, "0") });
 * ```
 */
export function assertBlobKey(key: BlobKey): void {
  if (!isBlobUserId(key.userId)) throw new TypeError(`Invalid blob user id "${key.userId}"`);
  if (!HASH_PATTERN.test(key.hash)) throw new TypeError(`Invalid blob hash "${key.hash}"`);
}

/**
 * The storage key string `{userId}/{hash}`.
 *
 * @example
 * ```ts
 * blobKeyString({ userId: "u1", hash: "ab".repeat(32) }); // "u1/abab…"
 * ```
 */
export function blobKeyString(key: BlobKey): string {
  return `${key.userId}/${key.hash}`;
}
