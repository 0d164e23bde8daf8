/**
 * XSalsa20-Poly1305 (NaCl `crypto_secretbox`) composed from @noble/ciphers' `xsalsa20` and
 * `poly1305`, writing straight into the caller's buffer. Same bytes as @noble's
 * `xsalsa20poly1305` (a test checks this across lengths), about 15% faster for large
 * messages because it neither copies the message nor runs the stream cipher in place.
 *
 * Layout: the first 32 bytes of the XSalsa20 keystream are the Poly1305 key; the message is
 * XORed with the keystream from byte 32 on; the box is `tag (16) || ciphertext`.
 *
 * @module
 */
import { poly1305 } from "@noble/ciphers/_poly1305.js";
import { xsalsa20 } from "@noble/ciphers/salsa.js";
import { equalBytes } from "@noble/ciphers/utils.js";

/** Bytes the tag adds. */
export const TAG_BYTES = 16;

/** Keystream block 0: Poly1305 key (bytes 0-31) and the pad of message bytes 0-31. */
function firstBlock(key: Uint8Array, nonce: Uint8Array): Uint8Array {
  return xsalsa20(key, nonce, new Uint8Array(64));
}

/** XORs `input` with the keystream from byte 32 on into `output` (same length). */
function stream(
  key: Uint8Array,
  nonce: Uint8Array,
  block0: Uint8Array,
  input: Uint8Array,
  output: Uint8Array,
): void {
  const head = Math.min(32, input.length);
  for (let i = 0; i < head; i++) output[i] = input[i] ^ block0[32 + i];
  if (input.length > 32) xsalsa20(key, nonce, input.subarray(32), output.subarray(32), 1);
}

/** Seals `message` into `output` (`message.length + 16` bytes): tag, then ciphertext. */
export function secretboxSeal(
  key: Uint8Array,
  nonce: Uint8Array,
  message: Uint8Array,
  output: Uint8Array,
): void {
  const block0 = firstBlock(key, nonce);
  const ciphertext = output.subarray(TAG_BYTES, TAG_BYTES + message.length);
  stream(key, nonce, block0, message, ciphertext);
  output.set(poly1305(ciphertext, block0.subarray(0, 32)), 0);
  block0.fill(0);
}

/** Opens `tag || ciphertext`; null if the tag does not authenticate it. */
export function secretboxOpen(
  key: Uint8Array,
  nonce: Uint8Array,
  box: Uint8Array,
): Uint8Array | null {
  if (box.length < TAG_BYTES) return null;
  const block0 = firstBlock(key, nonce);
  const ciphertext = box.subarray(TAG_BYTES);
  const tag = poly1305(ciphertext, block0.subarray(0, 32));
  if (!equalBytes(tag, box.subarray(0, TAG_BYTES))) {
    block0.fill(0);
    return null;
  }
  const message = new Uint8Array(ciphertext.length);
  stream(key, nonce, block0, ciphertext, message);
  block0.fill(0);
  return message;
}
