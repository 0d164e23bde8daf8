/**
 * JSON parameters of PostgreSQL statements: objects are sent as they are and the statement
 * casts them (`${json(row)}::json`), so npm:postgres serialises them once, keeping their key
 * order (a `json` column stores the text as given; `sql.json` would go through `jsonb`, which
 * sorts keys).
 *
 * @module
 */
import type postgres from "postgres";
import { ROW_LIMITS, WriteTooLargeError } from "../ports/limits.ts";

/**
 * `value` as a JSON parameter.
 *
 * @example
 * ```ts
 * await sql`insert into webhook_flags values (${id}, ${json(flag)}::json)`;
 * ```
 */
export function json(value: unknown): postgres.Parameter {
  // Typed as a parameter for the templates; at run time the object itself, serialised by the
  // statement's parameter type (json).
  return value as postgres.Parameter;
}

/**
 * Throws {@link WriteTooLargeError} when `value`'s JSON is over the size one row of the Deno KV
 * store holds (64 KiB): both stores refuse the same rows.
 *
 * @example
 * ```ts
 * checkRowSize(config); // before the insert
 * ```
 */
export function checkRowSize(value: unknown): void {
  const bytes = new TextEncoder().encode(JSON.stringify(value)).length;
  if (bytes > ROW_LIMITS.valueBytes) {
    throw new WriteTooLargeError(
      `A row of ${bytes} bytes is over the ${ROW_LIMITS.valueBytes} bytes one row may hold`,
    );
  }
}
