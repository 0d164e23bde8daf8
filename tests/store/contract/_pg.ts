/**
 * A fresh PostgreSQL schema on the test cluster (tests/_support/services/postgres.ts, started
 * on first use), migrated to the current version, for the contract suites' PostgreSQL runs.
 */
import { openPg, type PgOptions, type Sql } from "../../../src/store/pg/db.ts";
import { migratePg } from "../../../src/store/pg/migrate.ts";
import { postgresUp } from "../../_support/services/postgres.ts";

/** The test cluster's URL (starts it when it is not running). */
export async function pgUrl(): Promise<string> {
  return (await postgresUp()).url;
}

/**
 * Opens a pool on a new, migrated schema of the test cluster; `close` ends the pool (and any
 * other pool opened with `open`) and drops the schema.
 */
export async function freshPg(): Promise<{
  sql: Sql;
  url: string;
  schema: string;
  /** Another pool on the same schema (a second process). */
  open(options?: PgOptions): Sql;
  close(): Promise<void>;
}> {
  const url = await pgUrl();
  const schema = `t_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = openPg(url, { max: 1 });
  await admin.unsafe(`create schema ${schema}`);
  const pools: Sql[] = [];
  const open = (options: PgOptions = {}) => {
    const pool = openPg(url, { max: 4, ...options, schema });
    pools.push(pool);
    return pool;
  };
  const sql = open();
  await migratePg(sql);
  return {
    sql,
    url,
    schema,
    open,
    close: async () => {
      await Promise.all(pools.map((pool) => pool.end({ timeout: 5 })));
      await admin.unsafe(`drop schema ${schema} cascade`);
      await admin.end({ timeout: 5 });
    },
  };
}
