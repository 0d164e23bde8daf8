/**
 * Every port of the PostgreSQL backend in one bundle: what `serve` opens once with
 * `store.backend = "postgres"` and hands to the relay, the vault and the webhook engine. Several
 * processes (relays, vault workers) open it on one database; every port keeps its guarantees
 * across them.
 *
 * @module
 */
import type { StorePorts } from "../ports/bundle.ts";
import { SchemaVersionError } from "../ports/limits.ts";
import { describePgUrl, openPg, type Sql } from "./db.ts";
import { migratePg, type PgMigrationResult } from "./migrate.ts";
import { PgBlobMeta } from "./blob_meta.ts";
import { PgEnvelopes } from "./envelopes.ts";
import { PgIdentity } from "./identity.ts";
import { PgManifests } from "./manifests.ts";
import { PgRateLimits } from "./rate_limits.ts";
import { vaultPgPorts } from "./vault_ports.ts";
import { webhookPgPorts } from "./webhook_ports.ts";

/**
 * The database could not be used at start (unreachable, refused login, no such database); the
 * message names it by host, port and name, never its password.
 */
export class PgUnavailableError extends Error {
  override name = "PgUnavailableError";
}

/**
 * Brings the database of pool `sql` (opened on `url`) to this Sealpost's schema version; a
 * failure to reach or use it is a {@link PgUnavailableError} (a newer schema stays a
 * `SchemaVersionError`).
 *
 * @example
 * ```ts
 * const { from, to } = await migrateReachable(sql, config.store.postgres_url);
 * ```
 */
export async function migrateReachable(sql: Sql, url: string): Promise<PgMigrationResult> {
  try {
    return await migratePg(sql);
  } catch (err) {
    if (err instanceof SchemaVersionError) throw err;
    throw new PgUnavailableError(
      `Cannot use the PostgreSQL database ${describePgUrl(url)}: ${(err as Error).message}`,
    );
  }
}

/** Options of {@link openPgStore}. */
export interface PgStoreOptions {
  /** Connections in the pool (`store.postgres_pool_size`). */
  poolSize: number;
  /** Shown in `pg_stat_activity` (e.g. "sealpost-relay"). */
  applicationName?: string;
}

/** The PostgreSQL backend, opened: its pool and every port. */
export interface PgStore {
  sql: Sql;
  ports: StorePorts;
  /** Closes the ports (waiting for their commits in flight), then the pool. */
  close(): Promise<void>;
}

/**
 * Opens a pool on `url`, brings the schema to this Sealpost's version (src/store/pg/migrate.ts)
 * and builds every port on it.
 *
 * @example
 * ```ts
 * const store = await openPgStore(config.store.postgres_url, { poolSize: 10 });
 * await store.ports.relay.identity.getUser(userId);
 * await store.close();
 * ```
 */
export async function openPgStore(url: string, options: PgStoreOptions): Promise<PgStore> {
  const sql = openPg(url, { max: options.poolSize, applicationName: options.applicationName });
  try {
    await migrateReachable(sql, url);
    const envelopes = await PgEnvelopes.open(sql);
    const webhooks = await webhookPgPorts(sql);
    const ports: StorePorts = {
      relay: {
        envelopes,
        identity: new PgIdentity(sql),
        manifests: new PgManifests(sql),
        blobMeta: new PgBlobMeta(sql),
      },
      rateLimits: new PgRateLimits(sql),
      vault: vaultPgPorts(sql),
      webhooks,
      close: async () => {
        await webhooks.close();
        await envelopes.close();
      },
    };
    return {
      sql,
      ports,
      close: async () => {
        await ports.close();
        await sql.end({ timeout: 5 });
      },
    };
  } catch (err) {
    await sql.end({ timeout: 5 });
    throw err;
  }
}
