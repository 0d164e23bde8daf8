/**
 * Files encrypted end to end in the `age` format (https://age-encryption.org/v1), to the
 * form's X25519 recipient key, with the `age-encryption` package (built on @noble).
 *
 * A form's recipient public key is an age X25519 recipient (`age1…`) as it is, and the
 * database's secret key is an age identity (`AGE-SECRET-KEY-1…`): the same 32 bytes, in
 * bech32. So the `age` command line tool reads what the SDK writes and the other way round.
 *
 * Plaintext is padded with zeros to a size bucket before encryption (see
 * {@linkcode paddedSize}); the sealed file reference carries the real `sizeBytes`, and
 * readers cut the decrypted bytes to it.
 *
 * @module
 */
import { bech32 } from "@scure/base";
import { Decrypter, Encrypter } from "age-encryption";
import { MAX_FILE_BYTES } from "../forms/_common.ts";
import { CryptoError } from "./errors.ts";

/** The smallest bucket: every encrypted file is at least this many plaintext bytes. */
export const MIN_PADDED_BYTES = 4096;

/** age's payload chunk size: each chunk adds a 16-byte tag to the ciphertext. */
const CHUNK = 65_536;

/** Room kept for the age header (one X25519 stanza is about 200 bytes). */
const HEADER_ALLOWANCE = 1024;

/**
 * The largest plaintext an encrypted form takes: its ciphertext (padding, chunk tags and
 * header) must still fit the upload limit of {@linkcode MAX_FILE_BYTES}. 52,363,264 bytes.
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
  const mask = 2 ** (e - s) - 1;
  const padded = Math.ceil(size / (mask + 1)) * (mask + 1);
  return Math.min(padded, MAX_ENCRYPTED_PLAINTEXT_BYTES);
}

/**
 * The age X25519 recipient (`age1…`) of a raw 32-byte X25519 public key.
 *
 * @example
 * ```ts
 * ageRecipient(Uint8Array.fromBase64(manifest.recipient.publicKey)); // "age1…"
 * ```
 */
export function ageRecipient(publicKey: Uint8Array): string {
  checkKey(publicKey, "public key");
  return bech32.encode("age", bech32.toWords(publicKey), false);
}

/**
 * The age identity (`AGE-SECRET-KEY-1…`) of a raw 32-byte X25519 secret key: what
 * `age -d -i FILE` reads. A secret: never log it.
 *
 * @example
 * ```ts
 * await Deno.writeTextFile("identity.txt", ageIdentity(secretKey) + "\n");
 * ```
 */
export function ageIdentity(secretKey: Uint8Array): string {
  checkKey(secretKey, "secret key");
  return bech32.encode("age-secret-key-", bech32.toWords(secretKey), false).toUpperCase();
}

/**
 * The raw X25519 public key of an age X25519 recipient (`age1…`).
 *
 * @throws {CryptoError} `invalid_key` when `recipient` is not one.
 * @example
 * ```ts
 * parseAgeRecipient(ageRecipient(publicKey)); // the same 32 bytes
 * ```
 */
export function parseAgeRecipient(recipient: string): Uint8Array {
  try {
    const { prefix, words } = bech32.decode(recipient.toLowerCase() as `${string}1${string}`);
    const key = Uint8Array.from(bech32.fromWords(words));
    if (prefix === "age" && key.length === 32) return key;
  } catch {
    // Reported below.
  }
  throw new CryptoError("invalid_key", `"${recipient}" is not an age X25519 recipient (age1…)`);
}

function checkKey(key: Uint8Array, name: string): void {
  if (!(key instanceof Uint8Array) || key.length !== 32) {
    throw new CryptoError("invalid_key", `An X25519 ${name} must be 32 bytes`);
  }
}

/**
 * Pads `plaintext` to its bucket and encrypts it to `publicKey` in the age format. The same
 * file encrypts to different bytes every time (a fresh file key).
 *
 * @throws {CryptoError} `invalid_key`, or `invalid_input` over
 * {@linkcode MAX_ENCRYPTED_PLAINTEXT_BYTES}.
 * @example
 * ```ts
 * const ciphertext = await encryptFile(bytes, recipientPublicKey);
 * ```
 */
export async function encryptFile(
  plaintext: Uint8Array,
  publicKey: Uint8Array,
): Promise<Uint8Array> {
  if (plaintext.length > MAX_ENCRYPTED_PLAINTEXT_BYTES) {
    throw new CryptoError(
      "invalid_input",
      `An encrypted file takes at most ${MAX_ENCRYPTED_PLAINTEXT_BYTES} bytes, ` +
        `not ${plaintext.length}`,
    );
  }
  const padded = new Uint8Array(paddedSize(plaintext.length));
  padded.set(plaintext);
  const encrypter = new Encrypter();
  encrypter.addRecipient(ageRecipient(publicKey));
  return await encrypter.encrypt(padded);
}

/**
 * Decrypts an age stream with `secretKey`, cut to `sizeBytes` (the real size; padding
 * dropped). The header is checked before this resolves; a damaged payload makes the returned
 * stream error, never yield unauthenticated bytes.
 *
 * @throws {CryptoError} `decryption_failed` when the header is not for this key or is damaged.
 * @example
 * ```ts
 * const plain = await decryptFileStream(response.body!, secretKey, ref.sizeBytes);
 * ```
 */
export async function decryptFileStream(
  ciphertext: ReadableStream<Uint8Array>,
  secretKey: Uint8Array,
  sizeBytes: number,
): Promise<ReadableStream<Uint8Array>> {
  const decrypter = new Decrypter();
  decrypter.addIdentity(ageIdentity(secretKey));
  let plain: ReadableStream<Uint8Array>;
  try {
    plain = await decrypter.decrypt(ciphertext);
  } catch (err) {
    throw new CryptoError("decryption_failed", `The file does not decrypt: ${errorText(err)}`);
  }
  return plain.pipeThrough(truncate(sizeBytes));
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Passes the first `limit` bytes through and drops the rest (the padding). */
function truncate(limit: number): TransformStream<Uint8Array, Uint8Array> {
  let left = limit;
  return new TransformStream({
    transform(chunk, controller) {
      if (left <= 0) return;
      const part = chunk.length <= left ? chunk : chunk.subarray(0, left);
      left -= part.length;
      controller.enqueue(part);
    },
  });
}
