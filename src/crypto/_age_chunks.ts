/**
 * Sealing one age payload chunk with ChaCha20-Poly1305: natively (`node:crypto`, about 1 GB/s
 * here) when the runtime has it, else with @noble (pure JavaScript, about 180 MB/s; browsers).
 * Both write the same bytes: the chunk's ciphertext, then its 16-byte tag.
 *
 * @module
 */
import { chacha20poly1305 } from "@noble/ciphers/chacha.js";
import { type NativeCrypto, nativeCrypto } from "./_native.ts";

/** Seals `chunk` under `key` and the 12-byte `nonce` into `out` (`chunk.length + 16` bytes). */
export type ChunkSealer = (
  key: Uint8Array,
  nonce: Uint8Array,
  chunk: Uint8Array,
  out: Uint8Array,
) => void;

/** The pure-JavaScript sealer (@noble), writing straight into `out`. */
export const nobleSealer: ChunkSealer = (key, nonce, chunk, out) => {
  chacha20poly1305(key, nonce).encrypt(chunk, out);
};

/** The native sealer of `native` (`node:crypto`): its output is copied into `out`. */
export function nativeSealer(native: NativeCrypto): ChunkSealer {
  return (key, nonce, chunk, out) => {
    const cipher = native.createCipheriv("chacha20-poly1305", key, nonce, { authTagLength: 16 });
    const sealed = cipher.update(chunk);
    cipher.final();
    out.set(sealed);
    out.set(cipher.getAuthTag(), chunk.length);
  };
}

/** The runtime's fastest sealer: native where available, else @noble. */
export function chunkSealer(): ChunkSealer {
  const native = nativeCrypto();
  return native ? nativeSealer(native) : nobleSealer;
}
