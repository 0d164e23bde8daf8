/**
 * X25519 recipient keys: generation, encoding and the fingerprint the relay routes on.
 *
 * @module
 */
import { x25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { fromBase64, toBase64, toHex } from "./encoding.ts";
import { CryptoError } from "./errors.ts";

/** Length in bytes of X25519 public and secret keys. */
export const KEY_BYTES = 32;

/** An X25519 key pair, both halves raw 32 bytes. */
export interface KeyPair {
  publicKey: Uint8Array;
  secretKey: Uint8Array;
}

function checkLength(key: unknown, name: string): asserts key is Uint8Array {
  if (!(key instanceof Uint8Array) || key.length !== KEY_BYTES) {
    const got = key instanceof Uint8Array ? `${key.length} bytes` : typeof key;
    throw new CryptoError("invalid_key", `${name} must be ${KEY_BYTES} bytes, got ${got}`);
  }
}

/**
 * Generates a random X25519 key pair from the platform CSPRNG.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "./keys.ts";
 * const { publicKey, secretKey } = generateKeyPair();
 * ```
 */
export function generateKeyPair(): KeyPair {
  const { publicKey, secretKey } = x25519.keygen();
  return { publicKey, secretKey };
}

/**
 * The X25519 public key of a 32-byte secret key (`crypto_scalarmult_base`).
 *
 * @throws {CryptoError} `invalid_key` if `secretKey` is not 32 bytes.
 * @example
 * ```ts
 * import { generateKeyPair, publicKeyFromSecretKey } from "./keys.ts";
 * const pair = generateKeyPair();
 * publicKeyFromSecretKey(pair.secretKey); // equals pair.publicKey
 * ```
 */
export function publicKeyFromSecretKey(secretKey: Uint8Array): Uint8Array {
  checkLength(secretKey, "Secret key");
  return x25519.getPublicKey(secretKey);
}

/**
 * Fingerprint of a raw 32-byte public key: lowercase hex SHA-256 of its bytes (64 characters).
 * The relay routes submissions and names queues by it.
 *
 * @throws {CryptoError} `invalid_key` if `publicKey` is not 32 bytes.
 * @example
 * ```ts
 * import { fingerprint, generateKeyPair } from "./keys.ts";
 * fingerprint(generateKeyPair().publicKey); // "3f1c…" (64 hex characters)
 * ```
 */
export function fingerprint(publicKey: Uint8Array): string {
  checkLength(publicKey, "Public key");
  return toHex(sha256(publicKey));
}

/**
 * The short form of a key fingerprint that people compare by eye: its first 16 hex characters
 * in 4 groups of 4, the way the form page's trust line and the console show a form's key.
 *
 * @example
 * ```ts
 * import { shortFingerprint } from "./keys.ts";
 * shortFingerprint("3f1c9a2b77d0e412" + "0".repeat(48)); // "3f1c 9a2b 77d0 e412"
 * ```
 */
export function shortFingerprint(fingerprintHex: string): string {
  return fingerprintHex.slice(0, 16).match(/.{1,4}/g)?.join(" ") ?? "";
}

/**
 * Encodes a 32-byte public key as standard base64, the form manifests and envelopes carry.
 *
 * @throws {CryptoError} `invalid_key` if `publicKey` is not 32 bytes.
 * @example
 * ```ts
 * import { encodePublicKey, generateKeyPair } from "./keys.ts";
 * encodePublicKey(generateKeyPair().publicKey); // 44 characters ending in "="
 * ```
 */
export function encodePublicKey(publicKey: Uint8Array): string {
  checkLength(publicKey, "Public key");
  return toBase64(publicKey);
}

/**
 * Decodes a standard base64 public key and checks that it is 32 bytes.
 *
 * @throws {CryptoError} `invalid_key` naming the offending value.
 * @example
 * ```ts
 * import { decodePublicKey } from "./keys.ts";
 * decodePublicKey("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="); // 32 zero bytes
 * ```
 */
export function decodePublicKey(base64: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(base64);
  } catch (cause) {
    throw new CryptoError(
      "invalid_key",
      `Public key ${JSON.stringify(String(base64).slice(0, 64))} is not standard base64`,
      { cause },
    );
  }
  if (bytes.length !== KEY_BYTES) {
    throw new CryptoError(
      "invalid_key",
      `Public key ${JSON.stringify(base64.slice(0, 64))} decodes to ${bytes.length} bytes, ` +
        `expected ${KEY_BYTES}`,
    );
  }
  return bytes;
}
