/**
 * The size contract both backends honour, so a row one store takes the other takes too (and
 * a store moved from Deno KV to PostgreSQL holds the same rows): a row at most 64 KiB as
 * measured by {@link storedSize}, a key at most 2 KiB, a large value (record values, webhook
 * bodies) at most 640 KiB in parts; and the schema version a store must carry to be opened.
 *
 * @module
 */

/** Sizes of one stored row and of one key, the same on every backend (Deno KV's own). */
export const ROW_LIMITS = {
  keyBytes: 2048,
  valueBytes: 64 * 1024,
} as const;

/** Largest value kept in parts (record values, webhook bodies), room left in one Deno KV write. */
export const MAX_LARGE_VALUE_BYTES = 640 * 1024;

/** Bytes per part of a large value, under the 64 KiB row limit. */
export const PART_BYTES = 60 * 1024;

/**
 * Parts `bytes` bytes take (at least one): the unit in which a large value's size is told
 * (a quarantined envelope's `parts`), whatever the backend keeps.
 *
 * @example
 * ```ts
 * partCount(100 * 1024); // 2
 * ```
 */
export function partCount(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / PART_BYTES));
}

/** A write is over one of the store's limits (a value, a key, or the whole operation). */
export class WriteTooLargeError extends Error {
  override name = "WriteTooLargeError";
}

/** The store was written by a newer Sealpost (or its version cannot be read). */
export class SchemaVersionError extends Error {
  override name = "SchemaVersionError";
}

// deno-lint-ignore no-control-regex
const WIDE = /[^\x00-\xff]/;

/** Bytes of `value` in V8's serialisation: Latin-1 when it can, else UTF-16. */
export function storedStringSize(value: string): number {
  return WIDE.test(value) ? value.length * 2 : value.length;
}

/**
 * The size of `value` as the contract measures a row: its length in V8's serialisation (what
 * Deno KV stores), within a few percent.
 *
 * @example
 * ```ts
 * storedSize({ a: "b" }) <= ROW_LIMITS.valueBytes; // true
 * ```
 */
export function storedSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === "boolean") return 1;
  if (typeof value === "number" || typeof value === "bigint") return 9;
  if (typeof value === "string") return storedStringSize(value) + 5;
  if (ArrayBuffer.isView(value)) return value.byteLength + 8;
  if (value instanceof Date) return 9;
  if (Array.isArray(value)) {
    let size = 5;
    for (const item of value) size += storedSize(item);
    return size;
  }
  if (typeof value === "object") {
    // for…in, not Object.entries: no array per entry (every row written is measured).
    let size = 5;
    for (const k in value) {
      size += storedStringSize(k) + 2 + storedSize((value as Record<string, unknown>)[k]);
    }
    return size;
  }
  return 16;
}
