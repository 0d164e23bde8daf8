/**
 * A write part's check that failed on PostgreSQL: what it checked changed since the part was
 * made. Thrown inside the committing transaction, it rolls the whole write back; the port
 * that commits answers as Deno KV does when a check of its atomic operation fails.
 *
 * @module
 */

/**
 * The row a write part checks changed before the write committed.
 *
 * @example
 * ```ts
 * if (rev !== seen) throw new PgCheckFailedError("record r1 changed");
 * ```
 */
export class PgCheckFailedError extends Error {
  override name = "PgCheckFailedError";
}
