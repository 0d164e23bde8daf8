/**
 * Transactions that meet another process's: PostgreSQL aborts one side of a deadlock
 * (40P01) or a serialization failure (40001), and running it again is the remedy. Nothing of
 * an aborted transaction was written.
 *
 * @module
 */
import type { Sql, Tx } from "./db.ts";

/** Runs of one transaction before its error is the caller's. */
const TRIES = 5;

/** PostgreSQL's codes of a transaction worth running again: serialization failure, deadlock. */
const TRANSIENT = new Set(["40001", "40P01"]);

/**
 * Whether `err` is PostgreSQL aborting a transaction that may succeed when run again.
 *
 * @example
 * ```ts
 * isTransient({ code: "40P01" }); // true: a deadlock
 * ```
 */
export function isTransient(err: unknown): boolean {
  return TRANSIENT.has((err as { code?: string } | null)?.code ?? "");
}

/**
 * Runs `body` in a transaction of `sql`, again (at most five runs) when PostgreSQL aborted it
 * for a deadlock or a serialization failure.
 *
 * @example
 * ```ts
 * const saved = await transaction(sql, async (tx) => (await tx`update …`).length === 1);
 * ```
 */
export async function transaction<T>(sql: Sql, body: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await sql.begin(body) as T;
    } catch (err) {
      if (attempt >= TRIES || !isTransient(err)) throw err;
    }
  }
}
