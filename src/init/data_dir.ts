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

/** The relay secret (HMAC key of edit tokens and pre-signed URLs). */
export async function readRelaySecret(dataDir: string): Promise<Uint8Array> {
  const text = await readIfExists(dataPaths(dataDir).relaySecret);
  if (text === null) throw new Error(`No relay secret in ${dataDir}; run "sealpost init"`);
  return Uint8Array.fromBase64(text.trim());
}

/** The credentials file of a data dir, or null. */
export async function readCredentials(dataDir: string): Promise<Credentials | null> {
  const text = await readIfExists(dataPaths(dataDir).credentials);
  return text === null ? null : JSON.parse(text) as Credentials;
}
