/**
 * Versioned SQL migrations of the PostgreSQL store, run at start by every process: under a
 * transaction-scoped advisory lock, so processes starting together apply each migration once;
 * all pending migrations in one transaction (DDL is transactional in PostgreSQL), so a run cut
 * short leaves the database as it was. A database migrated by a newer Sealpost is refused.
 *
 * @module
 */
import { SchemaVersionError } from "../ports/limits.ts";
import type { Sql } from "./db.ts";
import { PG_MIGRATIONS } from "./migrations/index.ts";

/** One versioned step of the PostgreSQL schema. */
export interface PgMigration {
  /** 1, 2, … in order; never renumbered once released. */
  version: number;
  /** What it creates or changes (kept in `sealpost_migrations`). */
  name: string;
  /** The statements, run in one transaction with the others pending. */
  sql: string;
}

/** What {@link migratePg} did. */
export interface PgMigrationResult {
  /** The version found (0 for an empty database). */
  from: number;
  /** The version the database has now. */
  to: number;
  /** Names of the migrations that ran, in order. */
  applied: string[];
}

/** Arbitrary constant of the advisory lock held while migrating. */
const MIGRATION_LOCK = 0x5ea1_9057;

/**
 * Brings the database (the pool's schema) to the last of `migrations`.
 *
 * @example
 * ```ts
 * const { from, to } = await migratePg(sql);
 * ```
 */
export async function migratePg(
  sql: Sql,
  migrations: readonly PgMigration[] = PG_MIGRATIONS,
): Promise<PgMigrationResult> {
  checkOrder(migrations);
  return await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`create table if not exists sealpost_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`;
    const [{ current }] = await tx<{ current: number | null }[]>`
      select max(version) as current from sealpost_migrations`;
    const from = current ?? 0;
    const last = migrations.at(-1)?.version ?? 0;
    if (from > last) {
      throw new SchemaVersionError(
        `The PostgreSQL database is at schema version ${from}, newer than this Sealpost's ${last}`,
      );
    }
    const applied: string[] = [];
    for (const migration of migrations) {
      if (migration.version <= from) continue;
      await tx.unsafe(migration.sql);
      await tx`insert into sealpost_migrations (version, name)
        values (${migration.version}, ${migration.name})`;
      applied.push(migration.name);
    }
    return { from, to: Math.max(from, last), applied };
  });
}

function checkOrder(migrations: readonly PgMigration[]) {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new Error(`PostgreSQL migration "${m.name}" is number ${m.version}, expected ${i + 1}`);
    }
  });
}
