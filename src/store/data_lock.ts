/**
 * One process per data dir: `serve` holds an exclusive lock on `<data dir>/serve.lock` while
 * it runs (the file holds its pid), and checks first that the folder is writable.
 *
 * @module
 */
import { join } from "node:path";

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
