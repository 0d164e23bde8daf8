/**
 * The store's schema version and the migration runner: a store written by an older Sealpost is
 * upgraded in place, in order, one migration at a time; a store written by a newer one is
 * refused, untouched.
 *
 * The version lives under `keys.schemaVersion()`. A store without it is either new (empty:
 * stamped with the current version) or from before versioning (version 0: every migration
 * runs). Each migration is safe to run again, and the version is written after each one, so a
 * run cut short resumes where it stopped.
 *
 * @module
 */
import { SchemaVersionError } from "../ports/limits.ts";
import { keys } from "./keys.ts";
import { MIGRATIONS } from "./migrations.ts";

/** One step of the store's layout. */
export interface Migration {
  /** The version the store has after this step (1, 2, …, in order). */
  to: number;
  /** What changes, for the log line. */
  description: string;
  /**
   * Rewrites the store (of data dir `dataDir`) from version `to - 1` to `to`; running it twice
   * changes nothing more.
   */
  run(kv: Deno.Kv, dataDir: string): Promise<void>;
}

/** The layout version this program reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** What {@link migrateStore} did. */
export interface MigrationResult {
  /** The version found (0 for a non-empty store from before versioning). */
  from: number;
  /** The version the store has now. */
  to: number;
  /** The migrations that ran, in order. */
  applied: Migration[];
}

async function storedVersion(kv: Deno.Kv, where: string): Promise<number | null> {
  const { value } = await kv.get<unknown>(keys.schemaVersion());
  if (value === null) return null;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new SchemaVersionError(
      `The store in ${where} has an unreadable schema version (${String(value)})`,
    );
  }
  return value;
}

async function isEmpty(kv: Deno.Kv): Promise<boolean> {
  for await (const _ of kv.list({ prefix: [] }, { limit: 1 })) return false;
  return true;
}

/**
 * Brings the store of data dir `where` to `migrations.length`: stamps an
 * empty store, runs the migrations a store is behind on, and refuses a newer store with a
 * {@link SchemaVersionError}.
 *
 * @example
 * ```ts
 * const kv = await openStore(dataDir);
 * const { from, to } = await migrateStore(kv, dataDir);
 * if (from !== to) console.log(`store upgraded from version ${from} to ${to}`);
 * ```
 */
export async function migrateStore(
  kv: Deno.Kv,
  where: string,
  migrations: Migration[] = MIGRATIONS,
): Promise<MigrationResult> {
  const current = migrations.length;
  const found = await storedVersion(kv, where);
  if (found !== null && found > current) {
    throw new SchemaVersionError(
      `The data dir ${where} has store schema version ${found}, newer than the ${current} this ` +
        "Sealpost knows; run the newer Sealpost (or restore a backup made before the upgrade)",
    );
  }
  if (found === null && await isEmpty(kv)) {
    await kv.set(keys.schemaVersion(), current);
    return { from: current, to: current, applied: [] };
  }
  const from = found ?? 0;
  const applied: Migration[] = [];
  for (const migration of migrations.slice(from)) {
    await migration.run(kv, where);
    await kv.set(keys.schemaVersion(), migration.to);
    applied.push(migration);
  }
  return { from, to: current, applied };
}
