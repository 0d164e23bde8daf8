/**
 * The sender's half of Sealpost's encrypted files: padding to a size bucket, and encryption to
 * one X25519 recipient in the age v1 format (https://age-encryption.org/v1), on the @noble
 * primitives the rest of the crypto core already uses. The payload chunks are sealed with the
 * runtime's native ChaCha20-Poly1305 (`node:crypto`) when the SDK or CLI runs in Deno or Node,
 * and with @noble in browsers (`_age_chunks.ts`): the same bytes either way, about 6x faster
 * natively. It is small on purpose: the hosted form
 * page ships it (the `age-encryption` package, with its post-quantum recipients, would add
 * ~38 KB gzip to a page with a 100 KB budget). The vault decrypts with `age-encryption`
 * (src/crypto/age.ts), and the tests check both against Debian's `age` command.
 *
 * Format, as age writes it for one `age1…` recipient:
 *
 * ```text
 * age-encryption.org/v1
 * -> X25519 <ephemeral share, base64 without padding>
 * <file key wrapped with ChaCha20-Poly1305, base64 without padding>
 * --- <HMAC-SHA256 of the header, base64 without padding>
 * <16-byte nonce><payload: 64 KiB ChaCha20-Poly1305 chunks, STREAM nonces>
 * ```
 *
 * @module
 */
import { chacha20poly1305 } from "@noble/ciphers/chacha.js";
import { x25519 } from "@noble/curves/ed25519.js";
import { hkdf } from "@noble/hashes/hkdf.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { MAX_FILE_BYTES } from "../forms/_common.ts";
import { toBase64, utf8Encode } from "./encoding.ts";
import { chunkSealer } from "./_age_chunks.ts";
import { nativeCrypto } from "./_native.ts";
import { CryptoError } from "./errors.ts";

/** The smallest bucket: every encrypted file is at least this many plaintext bytes. */
export const MIN_PADDED_BYTES = 4096;

/** age's payload chunk size: each chunk adds a 16-byte tag to the ciphertext. */
const CHUNK = 65_536;

/** Room kept for the age header (one X25519 stanza is about 200 bytes). */
const HEADER_ALLOWANCE = 1024;

/**
 * The largest plaintext an encrypted form takes: its ciphertext (padding, chunk tags and
 * header) must still fit the upload limit of `MAX_FILE_BYTES`. 52,363,264 bytes.
 */
export const MAX_ENCRYPTED_PLAINTEXT_BYTES = Math.floor(
  (MAX_FILE_BYTES - HEADER_ALLOWANCE) / (CHUNK + 16),
) * CHUNK;

/**
 * The padded plaintext size of a `size`-byte file: at least 4 KiB, else the Padmé bucket
 * (the size rounded up so that only its top ⌊log2 log2 size⌋ + 1 bits vary; at most 12 %
 * more), and never over {@linkcode MAX_ENCRYPTED_PLAINTEXT_BYTES}.
 *
 * @example
 * ```ts
 * paddedSize(10); // 4096
 * paddedSize(1_000_000); // 1015808
 * ```
 */
export function paddedSize(size: number): number {
  if (size <= MIN_PADDED_BYTES) return MIN_PADDED_BYTES;
  const e = Math.floor(Math.log2(size));
  const s = Math.floor(Math.log2(e)) + 1;
  const step = 2 ** (e - s);
  return Math.min(Math.ceil(size / step) * step, MAX_ENCRYPTED_PLAINTEXT_BYTES);
}

const b64 = (bytes: Uint8Array): string => toBase64(bytes).replace(/=+$/, "");

/** The header stanza and MAC for `fileKey`, wrapped to `recipient`. */
function header(fileKey: Uint8Array, recipient: Uint8Array): Uint8Array {
  const ephemeral = x25519.utils.randomSecretKey();
  const share = x25519.getPublicKey(ephemeral);
  let shared: Uint8Array | null = null;
  try {
    shared = x25519.getSharedSecret(ephemeral, recipient);
  } catch {
    // A low-order point: reported below.
  }
  if (!shared || shared.every((b) => b === 0)) {
    throw new CryptoError("invalid_key", "The recipient key is a low-order point");
  }
  const salt = new Uint8Array(64);
  salt.set(share);
  salt.set(recipient, 32);
  const wrapKey = hkdf(sha256, shared, salt, utf8Encode("age-encryption.org/v1/X25519"), 32);
  const body = chacha20poly1305(wrapKey, new Uint8Array(12)).encrypt(fileKey);
  const text = `age-encryption.org/v1\n-> X25519 ${b64(share)}\n${b64(body)}\n---`;
  const macKey = hkdf(sha256, fileKey, new Uint8Array(), utf8Encode("header"), 32);
  return utf8Encode(`${text} ${b64(hmac(sha256, macKey, utf8Encode(text)))}\n`);
}

/** An encrypted file: its age bytes and, when it was computed on the way, their SHA-256. */
export interface EncryptedFile {
  bytes: Uint8Array;
  /**
   * The SHA-256 of `bytes` as 64 lowercase hex characters, hashed chunk by chunk while
   * encrypting where the runtime has native crypto (Deno, Node); null in browsers.
   */
  sha256: string | null;
}

/**
 * Pads `plaintext` with zeros to its bucket ({@linkcode paddedSize}) and encrypts it to the
 * raw X25519 `publicKey` in the age format: `age -d -i identity` opens it. The same file
 * encrypts to different bytes every time (fresh file key, nonce and ephemeral share).
 *
 * @throws {CryptoError} `invalid_key` for a bad key; `invalid_input` over
 * {@linkcode MAX_ENCRYPTED_PLAINTEXT_BYTES}.
 * @example
 * ```ts
 * const ciphertext = encryptFile(bytes, Uint8Array.fromBase64(manifest.recipient.publicKey));
 * ```
 */
export function encryptFile(plaintext: Uint8Array, publicKey: Uint8Array): Uint8Array {
  return encrypt(plaintext, publicKey, false).bytes;
}

/**
 * {@linkcode encryptFile}, also hashing the ciphertext as it is written (one pass over the
 * bytes instead of two) where the runtime has native crypto; `sha256` is null elsewhere.
 *
 * @throws {CryptoError} as {@linkcode encryptFile}.
 * @example
 * ```ts
 * const { bytes, sha256 } = encryptFileHashed(file, publicKey);
 * const hash = sha256 ?? await sha256Hex(bytes);
 * ```
 */
export function encryptFileHashed(plaintext: Uint8Array, publicKey: Uint8Array): EncryptedFile {
  return encrypt(plaintext, publicKey, true);
}

function encrypt(plaintext: Uint8Array, publicKey: Uint8Array, hash: boolean): EncryptedFile {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) {
    throw new CryptoError("invalid_key", "An X25519 public key must be 32 bytes");
  }
  if (plaintext.length > MAX_ENCRYPTED_PLAINTEXT_BYTES) {
    throw new CryptoError(
      "invalid_input",
      `An encrypted file takes at most ${MAX_ENCRYPTED_PLAINTEXT_BYTES} bytes, ` +
        `not ${plaintext.length}`,
    );
  }
  const size = paddedSize(plaintext.length);
  const chunks = Math.ceil(size / CHUNK);
  const fileKey = crypto.getRandomValues(new Uint8Array(16));
  const head = header(fileKey, publicKey);
  const nonce = crypto.getRandomValues(new Uint8Array(16));
  const payloadKey = hkdf(sha256, fileKey, nonce, utf8Encode("payload"), 32);
  const out = new Uint8Array(head.length + 16 + size + 16 * chunks);
  out.set(head);
  out.set(nonce, head.length);
  const hasher = hash ? nativeCrypto()?.createHash("sha256") ?? null : null;
  hasher?.update(out.subarray(0, head.length + 16));
  const seal = chunkSealer();
  let at = head.length + 16;
  const padded = new Uint8Array(CHUNK);
  const streamNonce = new Uint8Array(12);
  const nonceView = new DataView(streamNonce.buffer);
  for (let i = 0; i < chunks; i++) {
    const start = i * CHUNK;
    const length = Math.min(CHUNK, size - start);
    // The chunk's plaintext: the file's bytes, then zeros (the padding); copied only when
    // the chunk holds padding.
    let chunk = plaintext.subarray(start, start + length);
    if (chunk.length < length) {
      chunk = padded.subarray(0, length);
      chunk.fill(0);
      if (start < plaintext.length) chunk.set(plaintext.subarray(start));
    }
    nonceView.setUint32(7, i);
    streamNonce[11] = i === chunks - 1 ? 1 : 0;
    // Sealed straight into the output buffer, and hashed while it is still in cache.
    const sealed = out.subarray(at, at + length + 16);
    seal(payloadKey, streamNonce, chunk, sealed);
    hasher?.update(sealed);
    at += length + 16;
  }
  return { bytes: out, sha256: hasher?.digest("hex") ?? null };
}
