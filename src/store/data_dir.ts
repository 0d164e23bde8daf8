/**
 * The data dir: what lives in it, how its secrets are written (0600), and the lock that gives
 * it to one process: `serve` holds an exclusive lock on `<data dir>/serve.lock` while it runs
 * (the file holds its pid), and checks first that the folder is writable.
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

/** File name of the lock inside the data dir. */
export const LOCK_FILE = "serve.lock";

/** The data dir cannot be used (busy, read-only, missing permission); the message says why. */
export class DataDirError extends Error {
  override name = "DataDirError";
}

/** A held lock; `release` lets another process take the data dir. */
export interface DataDirLock {
  release(): void;
}

function reason(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/, (open|mkdir) '.*'$/, "");
}

/**
 * Creates the data dir if needed (0700), proves it writable, and takes the lock without
 * waiting. Throws {@link DataDirError} with a one-line message when another process holds
 * it or the folder cannot be written.
 *
 * @example
 * ```ts
 * const lock = await claimDataDir("./data");
 * try { ... } finally { lock.release(); }
 * ```
 */
export async function claimDataDir(dir: string): Promise<DataDirLock> {
  let file: Deno.FsFile;
  try {
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const probe = join(dir, `.write-probe-${crypto.randomUUID()}`);
    await Deno.writeFile(probe, new Uint8Array(1), { createNew: true, mode: 0o600 });
    await Deno.remove(probe);
    file = await Deno.open(join(dir, LOCK_FILE), { read: true, write: true, create: true });
  } catch (err) {
    throw new DataDirError(`Data dir ${dir} is not writable: ${reason(err)}`);
  }
  let locked: boolean;
  try {
    locked = file.tryLockSync(true);
  } catch (err) {
    file.close();
    throw new DataDirError(`Cannot lock data dir ${dir}: ${reason(err)}`);
  }
  if (!locked) {
    file.close();
    throw new DataDirError(
      `Data dir ${dir} is in use by another sealpost serve (${join(dir, LOCK_FILE)} is locked); ` +
        "stop it first or use another --data",
    );
  }
  // Who holds it, for `sealpost doctor` beside the server (its open-file limit).
  file.truncateSync(0);
  file.writeSync(new TextEncoder().encode(`${Deno.pid}\n`));
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      file.close();
    },
  };
}

/**
 * The pid of the `serve` holding `dir`'s lock, or null when none holds it (a stale file's pid
 * is not trusted: the lock is tried, shared, and taken only when nobody holds it).
 *
 * @example
 * ```ts
 * const pid = await lockHolder("/var/lib/sealpost"); // e.g. 4711
 * ```
 */
export async function lockHolder(dir: string): Promise<number | null> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(join(dir, LOCK_FILE), { read: true });
  } catch {
    return null;
  }
  try {
    if (file.tryLockSync(false)) return null;
    const text = new TextDecoder().decode(await new Response(file.readable).arrayBuffer());
    const pid = Number(text.trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } finally {
    try {
      file.close();
    } catch {
      // Closed by reading it to its end.
    }
  }
}
