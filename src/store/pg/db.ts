/**
 * PostgreSQL connections (npm:postgres): one pool per process, opened from `store.postgres_url`.
 * `int8` columns read as JS numbers (sequence numbers and byte counts stay below 2^53), `bytea`
 * as `Uint8Array`s; server notices are dropped.
 *
 * @module
 */
import postgres from "postgres";

/** A pool of connections (the tagged-template `sql` of npm:postgres). */
export type Sql = postgres.Sql;
/** The `sql` of one transaction (inside `sql.begin`). */
export type Tx = postgres.TransactionSql;

/** Options of {@link openPg}. */
export interface PgOptions {
  /** Connections in the pool (default 10). */
  max?: number;
  /** A schema to use instead of `public` (tests: one fresh schema each). */
  schema?: string;
  /** Shown in `pg_stat_activity` (default "sealpost"). */
  applicationName?: string;
}

/** Where a bad URL would print its password: only host, port and database are shown. */
export function describePgUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || "5432"}${u.pathname}`;
  } catch {
    return "(an unparsable PostgreSQL URL)";
  }
}

/**
 * Opens a pool on `url` (`postgres://user:password@host:port/database`). Connections are made
 * on first use; `await sql.end()` closes them.
 *
 * @example
 * ```ts
 * const sql = openPg("postgres://sealpost:secret@127.0.0.1:5432/sealpost");
 * const [{ n }] = await sql`select 1 as n`;
 * await sql.end();
 * ```
 */
export function openPg(url: string, options: PgOptions = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    connect_timeout: 10,
    connection: {
      application_name: options.applicationName ?? "sealpost",
      ...(options.schema ? { search_path: options.schema } : {}),
    },
    types: {
      int8: {
        to: 20,
        from: [20],
        serialize: (value: number | bigint) => String(value),
        parse: (value: string) => Number(value),
      },
    },
  });
}
