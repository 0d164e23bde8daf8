/**
 * The Deno KV backend opened for serving: the store file of the data dir, migrated, its one
 * queue listener and every port over it.
 *
 * @module
 */
import { RecordEventAnnouncer } from "../ports/record_events.ts";
import { dataPaths, newRelaySecretText, readIfExists, writeSecretFile } from "../data_dir.ts";
import { openStore } from "./file.ts";
import type { OpenStoreBase, StoreSetup } from "../open.ts";
import { QueueDispatcher } from "./queue.ts";
import { migrateStore } from "./schema.ts";
import { KvIdentity } from "./identity.ts";
import { openKvStore } from "./store.ts";

/** The Deno KV backend, opened. */
export interface KvOpenStore extends OpenStoreBase {
  backend: "kv";
  /** The store handle, for tests that write as another component would. */
  kv: Deno.Kv;
  /** The announcements of the store's record events, for tests that write them as the vault would. */
  recordEvents: RecordEventAnnouncer;
}

/**
 * Opens the store of `dataDir` (an older layout is migrated; a newer one, or a non-empty one
 * without a version, refused) and its ports; `relaySecret` is handed through. The rate limits
 * are this process's own buckets, each family tracking at most `options.maxTrackedAddresses`
 * addresses.
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
  options: { maxTrackedAddresses?: number } = {},
): Promise<KvOpenStore> {
  const kv = await openStore(dataDir);
  try {
    // Only the current layout is served: an older store is migrated, any other refused.
    await migrateStore(kv, dataDir);
    // The webhook engine's scheduled attempts and any other queue work: one listener per process.
    const queue = new QueueDispatcher(kv);
    const recordEvents = new RecordEventAnnouncer();
    const ports = await openKvStore(kv, dataDir, queue, recordEvents, options);
    let listening: Promise<void> | null = null;
    let held: Promise<unknown> = Promise.resolve();
    return {
      backend: "kv",
      kv,
      recordEvents,
      ports,
      relaySecret,
      // The store is a file of the data dir, whose probe write is the check.
      ping: () => Promise.resolve(),
      start: () => void (listening ??= queue.start()),
      // One process owns a KV store (the data dir's lock): holders queue in this process.
      exclusive: (_name, fn) => {
        const run = held.then(fn, fn);
        held = run.catch(() => {});
        return run;
      },
      close: async () => {
        await ports.close();
        kv.close();
        await listening;
      },
    };
  } catch (err) {
    kv.close();
    throw err;
  }
}

/**
 * Prepares the store of `dataDir` for `init`: its relay secret file made when missing, the
 * store migrated (an older layout upgraded; a newer one, or a non-empty one without a version,
 * refused).
 *
 * @example
 * ```ts
 * const setup = await setUpKvStore("./data");
 * await setup.close();
 * ```
 */
export async function setUpKvStore(dataDir: string): Promise<StoreSetup> {
  const secretPath = dataPaths(dataDir).relaySecret;
  if (await readIfExists(secretPath) === null) {
    await writeSecretFile(secretPath, newRelaySecretText() + "\n");
  }
  const kv = await openStore(dataDir);
  try {
    const migrated = await migrateStore(kv, dataDir);
    return {
      migration: {
        where: dataDir,
        from: migrated.from,
        to: migrated.to,
        applied: migrated.applied.map((m) => `${m.to}: ${m.description}`),
      },
      identity: new KvIdentity(kv),
      // The data dir's credentials file marks a KV store initialised (src/init/init.ts).
      initialiseOnce: async (create) => ({ userId: await create(), created: true }),
      close: () => Promise.resolve(kv.close()),
    };
  } catch (err) {
    kv.close();
    throw err;
  }
}
