/**
 * The store's schema version and the migration runner: a store written by an older Sealpost is
 * upgraded in place, in order, one migration at a time; a store written by a newer one is
 * refused, untouched.
 *
 * The version lives under `keys.schemaVersion()`. Version 1 is the baseline: the layout
 * `keys.ts` describes, as the first release writes it. An empty store is stamped with the
 * current version; a store without a version that is not empty was written by no released
 * Sealpost and is refused. Each migration is safe to run again, and the version is written after
 * each one, so a run cut short resumes where it stopped.
 *
 * @module
 */
import { SchemaVersionError } from "../ports/limits.ts";
import { keys } from "./keys.ts";

/** One step of the store's layout. */
export interface Migration {
  /** The version the store has after this step (2, 3, …, in order). */
  to: number;
  /** What changes, for the log line. */
  description: string;
  /**
   * Rewrites the store (of data dir `dataDir`) from version `to - 1` to `to`; running it twice
   * changes nothing more.
   */
  run(kv: Deno.Kv, dataDir: string): Promise<void>;
}

/** The version of the baseline layout, the one every migration starts from. */
export const BASELINE_VERSION = 1;

/**
 * The store's migrations after the baseline, oldest first: `MIGRATIONS[i]` takes a store from
 * version `BASELINE_VERSION + i` to `BASELINE_VERSION + i + 1`. None yet.
 */
export const MIGRATIONS: readonly Migration[] = [];

/** The layout version this program reads and writes. */
export const SCHEMA_VERSION = BASELINE_VERSION + MIGRATIONS.length;

/** What {@link migrateStore} did. */
export interface MigrationResult {
  /** The version found. */
  from: number;
  /** The version the store has now. */
  to: number;
  /** The migrations that ran, in order. */
  applied: Migration[];
}

async function storedVersion(kv: Deno.Kv, where: string): Promise<number | null> {
  const { value } = await kv.get<unknown>(keys.schemaVersion());
  if (value === null) return null;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < BASELINE_VERSION) {
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
 * Brings the store of data dir `where` to the version `migrations` lead to (the baseline plus
 * one per migration): stamps an empty store, runs the migrations a store is behind on, and
 * refuses a newer store, or a non-empty one without a version, with a
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
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<MigrationResult> {
  const current = BASELINE_VERSION + migrations.length;
  const found = await storedVersion(kv, where);
  if (found !== null && found > current) {
    throw new SchemaVersionError(
      `The data dir ${where} has store schema version ${found}, newer than the ${current} this ` +
        "Sealpost knows; run the newer Sealpost (or restore a backup made before the upgrade)",
    );
  }
  if (found === null) {
    if (!await isEmpty(kv)) {
      throw new SchemaVersionError(
        `The data dir ${where} holds a store without a schema version, which no released ` +
          "Sealpost writes; restore a backup of this data dir, or start from an empty one",
      );
    }
    await kv.set(keys.schemaVersion(), current);
    return { from: current, to: current, applied: [] };
  }
  const applied: Migration[] = [];
  for (const migration of migrations.slice(found - BASELINE_VERSION)) {
    await migration.run(kv, where);
    await kv.set(keys.schemaVersion(), migration.to);
    applied.push(migration);
  }
  return { from: found, to: current, applied };
}
