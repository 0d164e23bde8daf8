/**
 * The Deno KV backend opened for serving: the store file of the data dir, migrated, its one
 * queue listener and every port over it.
 *
 * @module
 */
import { openStore } from "../kv.ts";
import type { OpenStoreBase } from "../open.ts";
import { QueueDispatcher } from "../queue.ts";
import { migrateStore } from "../schema.ts";
import { openKvStore } from "./store.ts";
import { KvVaultCounts } from "./vault_counts.ts";

/** The Deno KV backend, opened. */
export interface KvOpenStore extends OpenStoreBase {
  backend: "kv";
  /** The store handle, for tests that write as another component would. */
  kv: Deno.Kv;
}

/**
 * Opens the store of `dataDir` (an older layout is migrated, a newer one refused) and its
 * ports; `relaySecret` is handed through.
 *
 * @example
 * ```ts
 * const store = await openKvBackend("./data", secret);
 * store.start(); // after the webhook engine registered its queue handler
 * await store.close();
 * ```
 */
export async function openKvBackend(
  dataDir: string,
  relaySecret: Uint8Array,
): Promise<KvOpenStore> {
  const kv = await openStore(dataDir);
  try {
    // Only the current layout is served: an older store is migrated, a newer one refused.
    await migrateStore(kv, dataDir);
    // The webhook engine's scheduled attempts and any other queue work: one listener per process.
    const queue = new QueueDispatcher(kv);
    const ports = await openKvStore(kv, dataDir, queue);
    const vaultCounts = new KvVaultCounts(dataDir);
    let listening: Promise<void> | null = null;
    return {
      backend: "kv",
      kv,
      ports,
      relaySecret,
      vaultCounts,
      start: () => void (listening ??= queue.start()),
      close: async () => {
        await ports.close();
        vaultCounts.close();
        kv.close();
        await listening;
      },
    };
  } catch (err) {
    kv.close();
    throw err;
  }
}
