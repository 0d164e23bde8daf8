/**
 * Opening the configured store: the one place that chooses the backend (`store.backend`).
 * `serve` opens it once and hands its ports to the relay, the vault and the webhook engine;
 * nothing else knows which backend runs.
 *
 * @module
 */
import { type Config, ConfigError } from "../config/index.ts";
import { readRelaySecret, readRelaySecretFile } from "../init/data_dir.ts";
import type { StorePorts } from "./ports/bundle.ts";
import { type KvOpenStore, openKvBackend } from "./kv/open.ts";

/** What the metrics read at scrape time from the vault's side of the store, capped. */
export interface VaultCounts {
  /** Envelopes in quarantine, at most `cap`. */
  quarantined(cap: number): Promise<number>;
  /** Webhook deliveries pending an attempt and failed for good, at most `cap` each. */
  deliveries(cap: number): Promise<{ pending: number; failed: number }>;
}

/** A store opened for serving, whatever its backend. */
export interface OpenStoreBase {
  /** Every port of the store. */
  ports: StorePorts;
  /** HMAC key of edit tokens and pre-signed URLs, the same in every process of one store. */
  relaySecret: Uint8Array;
  /** The vault's counts for the metrics. */
  vaultCounts: VaultCounts;
  /** Starts the store's background listeners, once every consumer has registered. */
  start(): void;
  /** Waits for commits in flight, stops the listeners and closes the store. */
  close(): Promise<void>;
}

/** The opened store of either backend (`backend` tells which). */
export type OpenStore = KvOpenStore;

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
  if (config.store.backend !== "kv") {
    throw new ConfigError(`store.backend = "${config.store.backend}" is not wired in this build`);
  }
  const file = config.store.relay_secret_file;
  const secret = file ? await readRelaySecretFile(file) : await readRelaySecret(config.data_dir);
  return await openKvBackend(config.data_dir, secret);
}
