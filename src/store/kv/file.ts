/**
 * Opening the Deno KV store: always by explicit path (a compiled binary would
 * otherwise get an in-memory store).
 *
 * @module
 */
import { join } from "node:path";

/** File name of the KV store inside the data dir. */
export const KV_FILE = "sealpost.kv";

/**
 * Opens the store in `dataDir`; the store file and its `-wal`/`-shm` are made 0600.
 *
 * @example
 * ```ts
 * const kv = await openStore("./data");
 * ```
 */
export async function openStore(dataDir: string): Promise<Deno.Kv> {
  const path = join(dataDir, KV_FILE);
  // SQLite gives its -wal and -shm files the mode of the store file: create that 0600 first.
  await Deno.writeFile(path, new Uint8Array(0), { createNew: true, mode: 0o600 }).catch((err) => {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
  });
  const kv = await Deno.openKv(path);
  // Whatever the umask and the folder's mode: owner-only, the store file and its companions.
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    await Deno.chmod(file, 0o600).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
  }
  return kv;
}
