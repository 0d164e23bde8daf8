/**
 * The data dir: what lives in it and how its secrets are written (0600).
 *
 * @module
 */
import { join } from "node:path";

/** Paths of the files in a data dir. */
export function dataPaths(dataDir: string) {
  return {
    dir: dataDir,
    relaySecret: join(dataDir, "relay.secret"),
    credentials: join(dataDir, "credentials.json"),
  };
}

/** Credentials `init` writes for the command-line clients. */
export interface Credentials {
  baseUrl: string;
  userId: string;
  ownerToken: string;
  adminToken: string;
}

/** Writes `data` to `path` with mode 0600, atomically (temp file, fsync, rename). */
export async function writeSecretFile(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
  try {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    await file.sync();
  } finally {
    file.close();
  }
  await Deno.chmod(tmp, 0o600);
  await Deno.rename(tmp, path);
}

/** Reads a file, or null when it does not exist. */
export async function readIfExists(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

/** Bytes of a relay secret. */
export const RELAY_SECRET_BYTES = 32;

/** A new relay secret as written to its file or setting: base64 of 32 random bytes. */
export function newRelaySecretText(): string {
  return crypto.getRandomValues(new Uint8Array(RELAY_SECRET_BYTES)).toBase64();
}

/**
 * The relay secret in `text` (base64 of 32 bytes, surrounding blanks ignored); `where` names its
 * source in the error (never the text itself).
 *
 * @example
 * ```ts
 * parseRelaySecret(newRelaySecretText(), "relay.secret").length; // 32
 * ```
 */
export function parseRelaySecret(text: string, where: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.fromBase64(text.trim());
  } catch {
    throw new Error(`The relay secret in ${where} is not base64`);
  }
  if (bytes.length !== RELAY_SECRET_BYTES) {
    throw new Error(
      `The relay secret in ${where} has ${bytes.length} bytes, expected ${RELAY_SECRET_BYTES}`,
    );
  }
  return bytes;
}

/** The relay secret (HMAC key of edit tokens and pre-signed URLs). */
export async function readRelaySecret(dataDir: string): Promise<Uint8Array> {
  const path = dataPaths(dataDir).relaySecret;
  const text = await readIfExists(path);
  if (text === null) {
    throw new Error(`No relay secret in ${dataDir}; run the "init" command on it first`);
  }
  return parseRelaySecret(text, path);
}

/** The relay secret of `store.relay_secret_file` (the file must exist). */
export async function readRelaySecretFile(path: string): Promise<Uint8Array> {
  const text = await readIfExists(path);
  if (text === null) throw new Error(`store.relay_secret_file ${path} does not exist`);
  return parseRelaySecret(text, path);
}

/** The credentials file of a data dir, or null. */
export async function readCredentials(dataDir: string): Promise<Credentials | null> {
  const text = await readIfExists(dataPaths(dataDir).credentials);
  return text === null ? null : JSON.parse(text) as Credentials;
}
