/**
 * libsodium sealed boxes (`crypto_box_seal` / `crypto_box_seal_open`), byte for byte:
 *
 * 1. an ephemeral X25519 key pair `(esk, epk)`;
 * 2. `k = HSalsa20(X25519(esk, rpk), 0^16)` (`crypto_box_beforenm`);
 * 3. `nonce = BLAKE2b-192(epk || rpk)`;
 * 4. output `epk (32) || XSalsa20-Poly1305(k, nonce, message)`, whose first 16 bytes are the
 *    Poly1305 tag: 48 bytes of overhead in all.
 *
 * X25519 runs on the runtime's WebCrypto when it has X25519 (Deno, Node 20, current browsers),
 * which is several times faster than the pure JavaScript ladder of `@noble/curves`; elsewhere
 * the pure one takes over. Everything else is `@noble/ciphers` (HSalsa20, XSalsa20, Poly1305)
 * and `@noble/hashes` (BLAKE2b).
 *
 * @module
 */
import { hsalsa } from "@noble/ciphers/salsa.js";
import { u32, u8 } from "@noble/ciphers/utils.js";
import { x25519 } from "@noble/curves/ed25519.js";
import { blake2b } from "@noble/hashes/blake2.js";
import { hexToBytes } from "@noble/hashes/utils.js";
import { secretboxOpen, secretboxSeal } from "./_secretbox.ts";
import { CryptoError } from "./errors.ts";

/** Bytes a sealed box adds to its message: ephemeral public key (32) and tag (16). */
export const SEAL_OVERHEAD = 48;

/** Which X25519 implementation a sealed box uses. */
export type X25519Impl = "webcrypto" | "noble";

const KEY_BYTES = 32;
const SIGMA = u32(new TextEncoder().encode("expand 32-byte k"));
/** DER prefix of a PKCS #8 X25519 private key (RFC 8410); the raw 32 bytes follow. */
const PKCS8_X25519 = hexToBytes("302e020100300506032b656e04220420");
const ALG = { name: "X25519" } as const;

interface X25519 {
  /** A fresh ephemeral public key and its shared secret with `recipient`. */
  ephemeral(recipient: Uint8Array): Promise<{ epk: Uint8Array; shared: Uint8Array }>;
  /** X25519(secretKey, publicKey). */
  shared(secretKey: Uint8Array, publicKey: Uint8Array): Promise<Uint8Array>;
}

const noble: X25519 = {
  ephemeral(recipient) {
    const { secretKey, publicKey } = x25519.keygen();
    try {
      return Promise.resolve({
        epk: publicKey,
        shared: x25519.getSharedSecret(secretKey, recipient),
      });
    } finally {
      secretKey.fill(0);
    }
  },
  shared(secretKey, publicKey) {
    return Promise.resolve(x25519.getSharedSecret(secretKey, publicKey));
  },
};

function webcrypto(subtle: SubtleCrypto): X25519 {
  // Senders seal to the same recipient again and again: keep its imported key.
  let recent: { bytes: Uint8Array; key: CryptoKey } | undefined;
  const importPublic = async (publicKey: Uint8Array) => {
    if (recent && recent.bytes.every((b, i) => b === publicKey[i])) return recent.key;
    const bytes = publicKey.slice();
    const key = await subtle.importKey("raw", bytes, ALG, true, []);
    recent = { bytes, key };
    return key;
  };
  const derive = async (priv: CryptoKey, pub: CryptoKey) =>
    new Uint8Array(await subtle.deriveBits({ name: "X25519", public: pub }, priv, 256));
  return {
    async ephemeral(recipient) {
      const [pair, pub] = await Promise.all([
        subtle.generateKey(ALG, false, ["deriveBits"]) as Promise<CryptoKeyPair>,
        importPublic(recipient),
      ]);
      const [epk, shared] = await Promise.all([
        subtle.exportKey("raw", pair.publicKey),
        derive(pair.privateKey, pub),
      ]);
      return { epk: new Uint8Array(epk), shared };
    },
    async shared(secretKey, publicKey) {
      const der = new Uint8Array(PKCS8_X25519.length + KEY_BYTES);
      der.set(PKCS8_X25519);
      der.set(secretKey, PKCS8_X25519.length);
      try {
        const [priv, pub] = await Promise.all([
          subtle.importKey("pkcs8", der, ALG, false, ["deriveBits"]),
          subtle.importKey("raw", publicKey as BufferSource, ALG, true, []),
        ]);
        return await derive(priv, pub);
      } finally {
        der.fill(0);
      }
    },
  };
}

/** Uses WebCrypto X25519 only if it exists and agrees with the pure implementation. */
async function detect(): Promise<X25519Impl> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return "noble";
  try {
    const a = x25519.keygen();
    const b = x25519.keygen();
    const native = await webcrypto(subtle).shared(a.secretKey, b.publicKey);
    const pure = x25519.getSharedSecret(b.secretKey, a.publicKey);
    return native.length === KEY_BYTES && native.every((v, i) => v === pure[i])
      ? "webcrypto"
      : "noble";
  } catch {
    return "noble";
  }
}

let detected: Promise<X25519Impl> | undefined;

/**
 * The X25519 implementation that {@linkcode seal} and {@linkcode open} use in this runtime:
 * `"webcrypto"` when the runtime's WebCrypto has X25519 and passes a self-check, else
 * `"noble"`.
 *
 * @example
 * ```ts
 * import { x25519Impl } from "./sealed_box.ts";
 * console.log(await x25519Impl()); // "webcrypto" in Deno
 * ```
 */
export function x25519Impl(): Promise<X25519Impl> {
  return detected ??= detect();
}

let native: X25519 | undefined;

async function backend(impl: X25519Impl | undefined): Promise<X25519> {
  const chosen = impl ?? await x25519Impl();
  if (chosen === "noble") return noble;
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new CryptoError("invalid_input", "This runtime has no WebCrypto");
  return native ??= webcrypto(subtle);
}

function checkKey(key: unknown, name: string): asserts key is Uint8Array {
  if (!(key instanceof Uint8Array)) {
    throw new CryptoError("invalid_key", `${name} must be a Uint8Array, got ${typeof key}`);
  }
  if (key.length !== KEY_BYTES) {
    throw new CryptoError(
      "invalid_key",
      `${name} must be ${KEY_BYTES} bytes, got ${key.length}`,
    );
  }
}

function checkBytes(value: unknown, name: string): asserts value is Uint8Array {
  if (!(value instanceof Uint8Array)) {
    throw new CryptoError("invalid_input", `${name} must be a Uint8Array, got ${typeof value}`);
  }
}

/** crypto_box_beforenm: HSalsa20 of the shared secret with a zero nonce. */
function beforenm(shared: Uint8Array): Uint8Array {
  const k = new Uint8Array(KEY_BYTES);
  k.set(shared);
  const out = new Uint32Array(8);
  hsalsa(SIGMA, u32(k), new Uint32Array(4), out);
  k.fill(0);
  shared.fill(0);
  return u8(out);
}

function nonceOf(epk: Uint8Array, rpk: Uint8Array): Uint8Array {
  return blake2b.create({ dkLen: 24 }).update(epk).update(rpk).digest();
}

/** Options of {@linkcode seal} and {@linkcode open}. */
export interface SealOptions {
  /** Forces one X25519 implementation; default: {@linkcode x25519Impl}. */
  x25519?: X25519Impl;
}

/**
 * Seals `message` to `recipientPublicKey` exactly as libsodium's `crypto_box_seal`: the result
 * is `SEAL_OVERHEAD` bytes longer and only the recipient's secret key opens it.
 *
 * @throws {CryptoError} `invalid_key` if the key is not 32 bytes or is a low-order point.
 * @example
 * ```ts
 * import { generateKeyPair } from "./keys.ts";
 * import { open, seal } from "./sealed_box.ts";
 * const { publicKey, secretKey } = generateKeyPair();
 * const sealed = await seal(new TextEncoder().encode("hi"), publicKey);
 * await open(sealed, publicKey, secretKey); // Uint8Array [104, 105]
 * ```
 */
export async function seal(
  message: Uint8Array,
  recipientPublicKey: Uint8Array,
  options: SealOptions = {},
): Promise<Uint8Array> {
  checkBytes(message, "Message");
  checkKey(recipientPublicKey, "Recipient public key");
  const x = await backend(options.x25519);
  let ephemeral: { epk: Uint8Array; shared: Uint8Array };
  try {
    ephemeral = await x.ephemeral(recipientPublicKey);
  } catch (cause) {
    throw new CryptoError(
      "invalid_key",
      "Recipient public key is unusable for X25519 (a low-order point)",
      { cause },
    );
  }
  const { epk } = ephemeral;
  const key = beforenm(ephemeral.shared);
  const out = new Uint8Array(message.length + SEAL_OVERHEAD);
  out.set(epk, 0);
  secretboxSeal(key, nonceOf(epk, recipientPublicKey), message, out.subarray(KEY_BYTES));
  key.fill(0);
  return out;
}

/**
 * Opens a sealed box made by {@linkcode seal} or libsodium's `crypto_box_seal`.
 *
 * @throws {CryptoError} `invalid_key` for a key of the wrong length or a low-order ephemeral
 * key; `decryption_failed` when the box is truncated, altered or sealed to another key.
 * @example
 * ```ts
 * import { generateKeyPair } from "./keys.ts";
 * import { open, seal } from "./sealed_box.ts";
 * const { publicKey, secretKey } = generateKeyPair();
 * const message = await open(await seal(new Uint8Array([1]), publicKey), publicKey, secretKey);
 * ```
 */
export async function open(
  sealed: Uint8Array,
  recipientPublicKey: Uint8Array,
  recipientSecretKey: Uint8Array,
  options: SealOptions = {},
): Promise<Uint8Array> {
  checkBytes(sealed, "Sealed box");
  checkKey(recipientPublicKey, "Recipient public key");
  checkKey(recipientSecretKey, "Recipient secret key");
  if (sealed.length < SEAL_OVERHEAD) {
    throw new CryptoError(
      "decryption_failed",
      `Sealed box of ${sealed.length} bytes is shorter than the ${SEAL_OVERHEAD}-byte overhead`,
    );
  }
  const epk = sealed.slice(0, KEY_BYTES);
  const x = await backend(options.x25519);
  let shared: Uint8Array;
  try {
    shared = await x.shared(recipientSecretKey, epk);
  } catch (cause) {
    throw new CryptoError("decryption_failed", "Sealed box has an invalid ephemeral key", {
      cause,
    });
  }
  const key = beforenm(shared);
  const message = secretboxOpen(key, nonceOf(epk, recipientPublicKey), sealed.subarray(KEY_BYTES));
  key.fill(0);
  if (message === null) {
    throw new CryptoError(
      "decryption_failed",
      "Sealed box does not authenticate: wrong key, or truncated or altered bytes",
    );
  }
  return message;
}
