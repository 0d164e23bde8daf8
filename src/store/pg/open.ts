/**
 * The PostgreSQL backend for `init`: the database migrated, the relay secret made once for
 * every process (unless `store.relay_secret_file` gives it), and the first run done once.
 *
 * @module
 */
import type { Config } from "../../config/index.ts";
import type { StoreSetup } from "../open.ts";
import { describePgUrl, openPg } from "./db.ts";
import { PgIdentity } from "./identity.ts";
import { migratePg } from "./migrate.ts";
import { initialiseOnce, sharedRelaySecret } from "./settings.ts";

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
    const migrated = await migratePg(sql);
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
