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
 * Opens the store in `dataDir`.
 *
 * @example
 * ```ts
 * const kv = await openStore("./data");
 * ```
 */
export function openStore(dataDir: string): Promise<Deno.Kv> {
  return Deno.openKv(join(dataDir, KV_FILE));
}

/** Maximum bytes of one ciphertext chunk (a KV value holds at most 64 KiB). */
export const CHUNK_BYTES = 60 * 1024;
