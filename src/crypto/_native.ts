/**
 * The runtime's native crypto (`node:crypto`) where there is one: Deno, Node ≥ 20.16, Bun.
 * Looked up with `process.getBuiltinModule` rather than imported, so modules the form page
 * bundles for browsers can use it when present and fall back to @noble when not (no import of
 * `node:crypto` reaches the browser bundle).
 *
 * @module
 */

/** A one-shot ChaCha20-Poly1305 sealer (the `node:crypto` Cipher subset used here). */
interface NativeCipher {
  update(data: Uint8Array): Uint8Array;
  final(): Uint8Array;
  getAuthTag(): Uint8Array;
}

/** An incremental hash (the `node:crypto` Hash subset used here). */
export interface NativeHash {
  update(data: Uint8Array): unknown;
  digest(encoding: "hex"): string;
}

/** The parts of `node:crypto` the crypto core uses. */
export interface NativeCrypto {
  createCipheriv(
    algorithm: "chacha20-poly1305",
    key: Uint8Array,
    iv: Uint8Array,
    options: { authTagLength: 16 },
  ): NativeCipher;
  createHash(algorithm: "sha256"): NativeHash;
  getCiphers(): string[];
}

type WithProcess = { process?: { getBuiltinModule?: (id: string) => unknown } };

let cached: NativeCrypto | null | undefined;

/**
 * `node:crypto` when the runtime has it with ChaCha20-Poly1305, else null (browsers).
 *
 * @example
 * ```ts
 * const native = nativeCrypto();
 * const hash = native?.createHash("sha256");
 * ```
 */
export function nativeCrypto(): NativeCrypto | null {
  if (cached !== undefined) return cached;
  cached = null;
  try {
    const found = (globalThis as WithProcess).process?.getBuiltinModule?.("node:crypto") as
      | NativeCrypto
      | undefined;
    if (found?.getCiphers().includes("chacha20-poly1305")) cached = found;
  } catch {
    // No such module here: the pure-JS primitives are used.
  }
  return cached;
}
