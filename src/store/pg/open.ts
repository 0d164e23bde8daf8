/**
 * The PostgreSQL backend, opened for `init` (the database migrated, the relay secret made once
 * for every process unless `store.relay_secret_file` gives it, the first run done once) and for
 * `serve` (every port, the shared relay secret, the store-wide lock).
 *
 * @module
 */
import type { Config } from "../../config/index.ts";
import { readRelaySecretFile } from "../data_dir.ts";
import type { OpenStoreBase, StoreSetup } from "../open.ts";
import { migrateReachable, openPgStore } from "./store.ts";
import { describePgUrl, openPg, type Sql } from "./db.ts";
import { PgIdentity } from "./identity.ts";
import { initialiseOnce, sharedRelaySecret, withPgLock } from "./settings.ts";

/**
 * Prepares the database of `config.store` for `init`. A new database reports no migrations
 * (it is created at the current version, as a new Deno KV store is); an older one lists those
 * that upgraded it.
 *
 * @example
 * ```ts
 * const setup = await setUpPgStore(config);
 * const { created } = await setup.initialiseOnce(() => createFirstUser(setup.identity));
 * await setup.close();
 * ```
 */
export async function setUpPgStore(config: Config): Promise<StoreSetup> {
  const url = config.store.postgres_url;
  // Two connections: one holds the first run's lock while the other writes.
  const sql = openPg(url, { max: 2, applicationName: "sealpost-init" });
  try {
    const migrated = await migrateReachable(sql, url);
    if (!config.store.relay_secret_file) await sharedRelaySecret(sql);
    const fresh = migrated.from === 0;
    return {
      migration: {
        where: `the PostgreSQL database ${describePgUrl(url)}`,
        from: fresh ? migrated.to : migrated.from,
        to: migrated.to,
        applied: fresh ? [] : migrated.applied,
      },
      identity: new PgIdentity(sql),
      initialiseOnce: (create) => initialiseOnce(sql, create),
      close: () => sql.end({ timeout: 5 }),
    };
  } catch (err) {
    await sql.end({ timeout: 5 });
    throw err;
  }
}

/** The PostgreSQL backend, opened. */
export interface PgOpenStore extends OpenStoreBase {
  backend: "postgres";
  /** The pool, for tests that look at the database as another process would. */
  sql: Sql;
}

/**
 * Opens the database of `config.store` for serving: migrated, every port on it, the relay
 * secret shared by every process (from the database, or `store.relay_secret_file`).
 *
 * @example
 * ```ts
 * const store = await openPgBackend(config);
 * await store.close();
 * ```
 */
export async function openPgBackend(config: Config): Promise<PgOpenStore> {
  const store = await openPgStore(config.store.postgres_url, {
    poolSize: config.store.postgres_pool_size,
    applicationName: `sealpost-${config.server.role}`,
  });
  try {
    const file = config.store.relay_secret_file;
    const relaySecret = file ? await readRelaySecretFile(file) : await sharedRelaySecret(store.sql);
    return {
      backend: "postgres",
      sql: store.sql,
      ports: store.ports,
      relaySecret,
      ping: async () => void await store.sql`select 1`,
      // The ports listen (LISTEN/NOTIFY and polls) from when they open.
      start: () => {},
      exclusive: (name, fn) => withPgLock(store.sql, name, fn),
      close: () => store.close(),
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}
