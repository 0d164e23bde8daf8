/**
 * Opening the configured store: the one place that chooses the backend (`store.backend`).
 * `serve` opens it once and hands its ports to the relay, the vault and the webhook engine;
 * nothing else knows which backend runs.
 *
 * @module
 */
import type { Config } from "../config/index.ts";
import { readRelaySecret, readRelaySecretFile } from "./data_dir.ts";
import type { IdentityPort } from "./ports/identity.ts";
import type { StorePorts } from "./ports/bundle.ts";
import { type KvOpenStore, openKvBackend, setUpKvStore } from "./kv/open.ts";
import { openPgBackend, type PgOpenStore, setUpPgStore } from "./pg/open.ts";

/** A store opened for serving, whatever its backend. */
export interface OpenStoreBase {
  /** Every port of the store. */
  ports: StorePorts;
  /** HMAC key of edit tokens and pre-signed URLs, the same in every process of one store. */
  relaySecret: Uint8Array;
  /** Resolves when the store can be used now; throws its error when it cannot. */
  ping(): Promise<void>;
  /** Starts the store's background listeners, once every consumer has registered. */
  start(): void;
  /**
   * Runs `fn` holding the store-wide lock `name`: one holder at a time in every process of the
   * store (the vault's first-run setup with several vault workers).
   */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Waits for commits in flight, stops the listeners and closes the store. */
  close(): Promise<void>;
}

/** The opened store of either backend (`backend` tells which). */
export type OpenStore = KvOpenStore | PgOpenStore;

/**
 * Opens the store `config.store` names, migrated to the current schema version, with its
 * relay secret (`store.relay_secret_file` when set).
 *
 * @example
 * ```ts
 * const store = await openConfiguredStore(config);
 * store.start();
 * await store.ports.relay.identity.getUser(userId);
 * await store.close();
 * ```
 */
export async function openConfiguredStore(config: Config): Promise<OpenStore> {
  if (config.store.backend === "postgres") return await openPgBackend(config);
  const file = config.store.relay_secret_file;
  const secret = file ? await readRelaySecretFile(file) : await readRelaySecret(config.data_dir);
  return await openKvBackend(config.data_dir, secret, {
    maxTrackedAddresses: config.rate_limits.max_tracked_addresses,
  });
}

/** What the store's schema migration did (`sealpost init` reports it). */
export interface StoreMigration {
  /** The store: a data dir, or a PostgreSQL database (host, port and name; no password). */
  where: string;
  from: number;
  to: number;
  /** The migrations that ran, in order, each described for the operator. */
  applied: string[];
}

/** What {@link StoreSetup.initialiseOnce} came to. */
export interface FirstRun {
  /** The first user's id (the owner of the vault's demo form). */
  userId: string;
  /** True when this call initialised the store, false when it was already. */
  created: boolean;
}

/** What `sealpost init` needs of the configured store. */
export interface StoreSetup {
  migration: StoreMigration;
  /** Users and tokens, for the admin token and the first user. */
  identity: IdentityPort;
  /**
   * Runs `create` (making the admin token and the first user; it answers the user's id) unless
   * the store was initialised already (by another process on a shared database).
   */
  initialiseOnce(create: () => Promise<string>): Promise<FirstRun>;
  close(): Promise<void>;
}

/**
 * Prepares the configured store for `init`: migrated, with its relay secret (made when missing:
 * Deno KV keeps it in the data dir, PostgreSQL in the database; `store.relay_secret_file` is
 * checked instead when set).
 *
 * @example
 * ```ts
 * const setup = await setUpConfiguredStore(config);
 * const first = await setup.initialiseOnce(() => createFirstUser(setup.identity));
 * await setup.close();
 * ```
 */
export async function setUpConfiguredStore(config: Config): Promise<StoreSetup> {
  const file = config.store.relay_secret_file;
  if (file) await readRelaySecretFile(file);
  return config.store.backend === "postgres"
    ? await setUpPgStore(config)
    : await setUpKvStore(config.data_dir);
}
