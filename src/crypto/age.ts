/**
 * The owner's half of Sealpost's encrypted files (age format, https://age-encryption.org/v1):
 * key encodings, and streaming decryption: the header with the `age-encryption` package
 * (built on @noble), the payload chunk by chunk in `_age_stream.ts`. Senders encrypt with
 * `age_encrypt.ts`.
 *
 * A form's recipient public key is an age X25519 recipient (`age1…`) as it is, and the
 * database's secret key is an age identity (`AGE-SECRET-KEY-1…`): the same 32 bytes, in
 * bech32. So the `age` command line tool reads what the SDK writes and the other way round.
 *
 * Plaintext is padded with zeros to a size bucket before encryption (`paddedSize` in
 * `age_encrypt.ts`); the sealed file reference carries the real `sizeBytes`, and readers cut
 * the decrypted bytes to it.
 *
 * @module
 */
import { bech32 } from "@scure/base";
import { Decrypter } from "age-encryption";
import { openAgeStream } from "./_age_stream.ts";
import { CryptoError } from "./errors.ts";

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
  try {
    return await openAgeStream(
      ciphertext,
      (header) => decrypter.decryptHeader(header),
      sizeBytes,
    );
  } catch (err) {
    throw new CryptoError("decryption_failed", `The file does not decrypt: ${errorText(err)}`);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
