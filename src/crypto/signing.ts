/**
 * Ed25519 signatures over form manifests.
 *
 * **Canonical encoding.** The signed bytes are the UTF-8 of
 * `"sealpost-manifest-v1\n" + canonicalJson(manifest without its "signature" member)`, where
 * `canonicalJson` is JSON with no whitespace, object members sorted by key (UTF-16 code
 * units, as JavaScript's default sort), members whose value is `undefined` left out, strings
 * and numbers written as `JSON.stringify` writes them, and anything that is not JSON data
 * (non-finite numbers, bigints, functions, class instances) refused. For JSON data this is the
 * JSON Canonicalization Scheme (RFC 8785). The prefix separates manifest signatures from any
 * other use of the key.
 *
 * **Signature member.** `signature: {alg: "ed25519", publicKey, value}`, the raw 32-byte
 * public key and 64-byte signature in standard base64.
 *
 * **Fingerprint.** A manifest key is pinned by its fingerprint: lowercase hex SHA-256 of the raw
 * 32-byte Ed25519 public key.
 *
 * @module
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { fromBase64, toBase64, toHex, utf8Encode } from "./encoding.ts";
import { CryptoError } from "./errors.ts";
import { timingSafeEqual } from "./hmac.ts";

/** Prefix of the signed bytes (domain separation). */
export const MANIFEST_SIGNING_CONTEXT = "sealpost-manifest-v1\n";

/** The `signature` member of a signed manifest. */
export interface ManifestSignatureValue {
  alg: "ed25519";
  /** Raw 32-byte Ed25519 public key, standard base64. */
  publicKey: string;
  /** Raw 64-byte signature, standard base64. */
  value: string;
}

/** An Ed25519 key pair: 32-byte public key and 32-byte secret seed. */
export interface SigningKeyPair {
  publicKey: Uint8Array;
  secretKey: Uint8Array;
}

/**
 * Canonical JSON (see the module documentation): sorted keys, no whitespace.
 *
 * @throws {CryptoError} `invalid_input` for a value that is not JSON data, naming its path.
 * @example
 * ```ts
 * import { canonicalJson } from "./signing.ts";
 * canonicalJson({ b: [1, "x"], a: null }); // '{"a":null,"b":[1,"x"]}'
 * ```
 */
export function canonicalJson(value: unknown): string {
  return encode(value, "$");
}

function encode(value: unknown, path: string): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "string":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) {
        throw new CryptoError("invalid_input", `Value ${value} at ${path} is not a JSON number`);
      }
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value)) {
        return `[${value.map((v, i) => encode(v, `${path}[${i}]`)).join(",")}]`;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new CryptoError("invalid_input", `Value at ${path} is not a plain JSON object`);
      }
      const record = value as Record<string, unknown>;
      const members = Object.keys(record).sort()
        .filter((k) => record[k] !== undefined)
        .map((k) => `${JSON.stringify(k)}:${encode(record[k], `${path}.${k}`)}`);
      return `{${members.join(",")}}`;
    }
    default:
      throw new CryptoError(
        "invalid_input",
        `Value of type ${typeof value} at ${path} is not JSON`,
      );
  }
}

/**
 * The exact bytes a manifest signature covers: the context prefix and the canonical JSON of
 * the manifest without `signature`.
 *
 * @example
 * ```ts
 * import { manifestSigningBytes } from "./signing.ts";
 * manifestSigningBytes({ formId: "f", signature: { alg: "ed25519", publicKey: "", value: "" } });
 * // UTF-8 of 'sealpost-manifest-v1\n{"formId":"f"}'
 * ```
 */
export function manifestSigningBytes(manifest: object): Uint8Array {
  const { signature: _, ...unsigned } = manifest as Record<string, unknown>;
  return utf8Encode(MANIFEST_SIGNING_CONTEXT + canonicalJson(unsigned));
}

/**
 * A fresh Ed25519 manifest key.
 *
 * @example
 * ```ts
 * import { generateSigningKeyPair } from "./signing.ts";
 * const { publicKey, secretKey } = generateSigningKeyPair();
 * ```
 */
export function generateSigningKeyPair(): SigningKeyPair {
  const { publicKey, secretKey } = ed25519.keygen();
  return { publicKey, secretKey };
}

/**
 * The Ed25519 public key of a 32-byte secret seed.
 *
 * @throws {CryptoError} `invalid_key` if `secretKey` is not 32 bytes.
 * @example
 * ```ts
 * import { generateSigningKeyPair, signingPublicKey } from "./signing.ts";
 * const pair = generateSigningKeyPair();
 * signingPublicKey(pair.secretKey); // equals pair.publicKey
 * ```
 */
export function signingPublicKey(secretKey: Uint8Array): Uint8Array {
  checkKey(secretKey, "Ed25519 secret key");
  return ed25519.getPublicKey(secretKey);
}

/**
 * Fingerprint of a manifest key: lowercase hex SHA-256 of the raw 32-byte Ed25519 public key.
 *
 * @throws {CryptoError} `invalid_key` if `publicKey` is not 32 bytes.
 * @example
 * ```ts
 * import { generateSigningKeyPair, manifestKeyFingerprint } from "./signing.ts";
 * manifestKeyFingerprint(generateSigningKeyPair().publicKey); // 64 hex characters
 * ```
 */
export function manifestKeyFingerprint(publicKey: Uint8Array): string {
  checkKey(publicKey, "Ed25519 public key");
  return toHex(sha256(publicKey));
}

/**
 * Returns a copy of `manifest` with a fresh `signature` member (any old one is replaced).
 *
 * @throws {CryptoError} `invalid_key` for a bad key; `invalid_input` if the manifest is not
 * JSON data.
 * @example
 * ```ts
 * import { generateSigningKeyPair, signManifest } from "./signing.ts";
 * const { secretKey } = generateSigningKeyPair();
 * const signed = signManifest({ formId: "contact", schemaVersion: 1 }, secretKey);
 * signed.signature.alg; // "ed25519"
 * ```
 */
export function signManifest<T extends object>(
  manifest: T,
  secretKey: Uint8Array,
): Omit<T, "signature"> & { signature: ManifestSignatureValue } {
  const publicKey = signingPublicKey(secretKey);
  const { signature: _, ...unsigned } = manifest as T & { signature?: unknown };
  const value = ed25519.sign(manifestSigningBytes(unsigned), secretKey);
  return {
    ...unsigned,
    signature: { alg: "ed25519", publicKey: toBase64(publicKey), value: toBase64(value) },
  };
}

/**
 * Checks that `manifest` is signed by the manifest key whose fingerprint is `pinnedFingerprint`
 * and that the signature covers it as it is. Returns the signer's fingerprint.
 *
 * @throws {CryptoError} `invalid_signature` when the signature is missing or malformed, the
 * key is not the pinned one, or the signature does not verify; `invalid_input` for a pin that
 * is not 64 hex characters.
 * @example
 * ```ts
 * import {
 *   generateSigningKeyPair,
 *   manifestKeyFingerprint,
 *   signManifest,
 *   verifyManifestSignature,
 * } from "./signing.ts";
 * const { publicKey, secretKey } = generateSigningKeyPair();
 * const signed = signManifest({ formId: "contact" }, secretKey);
 * verifyManifestSignature(signed, manifestKeyFingerprint(publicKey)); // ok
 * ```
 */
export function verifyManifestSignature(manifest: object, pinnedFingerprint: string): string {
  const pin = typeof pinnedFingerprint === "string" ? pinnedFingerprint.trim().toLowerCase() : "";
  if (!/^[0-9a-f]{64}$/.test(pin)) {
    throw new CryptoError(
      "invalid_input",
      `Pinned fingerprint ${JSON.stringify(pinnedFingerprint)} is not 64 hex characters`,
    );
  }
  const sig = (manifest as { signature?: unknown }).signature;
  if (sig === undefined || sig === null) {
    throw new CryptoError("invalid_signature", "Manifest is not signed");
  }
  const { alg, publicKey, value } = sig as Record<string, unknown>;
  if (alg !== "ed25519") {
    throw new CryptoError(
      "invalid_signature",
      `Manifest signature alg ${JSON.stringify(alg)} is not "ed25519"`,
    );
  }
  const key = decode(publicKey, 32, "signature.publicKey");
  const signature = decode(value, 64, "signature.value");
  const actual = toHex(sha256(key));
  if (!timingSafeEqual(actual, pin)) {
    throw new CryptoError(
      "invalid_signature",
      `Manifest is signed by key ${actual}, not the pinned ${pin}`,
    );
  }
  let ok = false;
  try {
    ok = ed25519.verify(signature, manifestSigningBytes(manifest), key, { zip215: false });
  } catch (cause) {
    if (cause instanceof CryptoError) throw cause;
    throw new CryptoError("invalid_signature", "Manifest signature is malformed", { cause });
  }
  if (!ok) {
    throw new CryptoError(
      "invalid_signature",
      "Manifest signature does not verify: the manifest was altered after signing",
    );
  }
  return actual;
}

function decode(value: unknown, bytes: number, name: string): Uint8Array {
  let out: Uint8Array | undefined;
  try {
    out = typeof value === "string" ? fromBase64(value) : undefined;
  } catch {
    out = undefined;
  }
  if (out?.length !== bytes) {
    throw new CryptoError(
      "invalid_signature",
      `Manifest ${name} must be the standard base64 of ${bytes} bytes`,
    );
  }
  return out;
}

function checkKey(key: unknown, name: string): asserts key is Uint8Array {
  if (!(key instanceof Uint8Array) || key.length !== 32) {
    const got = key instanceof Uint8Array ? `${key.length} bytes` : typeof key;
    throw new CryptoError("invalid_key", `${name} must be 32 bytes, got ${got}`);
  }
}
