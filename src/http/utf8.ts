/**
 * Strict UTF-8 decoding of server-side byte buffers (request bodies, decrypted payloads): the
 * bytes are validated natively (`node:buffer` `isUtf8`), then decoded without the fatal mode,
 * which costs about 5x for the same answer (49 against 12 µs for an 87 KB body, Deno 2.9.6).
 * Not for code the browser islands bundle (no `node:buffer` there).
 *
 * @module
 */
import { isUtf8 } from "node:buffer";

const decoder = new TextDecoder("utf-8");

/**
 * The text of `bytes`, or null when they are not valid UTF-8 (as a fatal `TextDecoder` would
 * refuse them; a leading byte order mark is dropped as it drops it).
 *
 * @example
 * ```ts
 * decodeUtf8(new Uint8Array([0x68, 0x69])); // "hi"
 * decodeUtf8(new Uint8Array([0xff])); // null
 * ```
 */
export function decodeUtf8(bytes: Uint8Array): string | null {
  return isUtf8(bytes) ? decoder.decode(bytes) : null;
}
