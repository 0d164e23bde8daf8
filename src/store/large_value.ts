/**
 * JSON values larger than one KV entry (64 KiB), stored as numbered parts under a prefix.
 *
 * Writers add the parts to their own atomic operation, so a large value is written
 * together with whatever refers to it (Deno KV caps one operation at 800 KiB).
 *
 * @module
 */
import { concatBytes, utf8Decode } from "../crypto/encoding.ts";

/** Bytes per part, under the 64 KiB value limit. */
const PART_BYTES = 60 * 1024;

/** Largest value accepted, leaving room in the 800 KiB atomic operation. */
export const MAX_LARGE_VALUE_BYTES = 640 * 1024;

/** Thrown when a value is over {@link MAX_LARGE_VALUE_BYTES}. */
export class ValueTooLargeError extends Error {
  override name = "ValueTooLargeError";
}

/**
 * Adds the mutations storing `value` under `prefix` to `op`; returns the part count, to
 * keep beside the reference (needed to delete the value).
 *
 * @example
 * ```ts
 * const op = kv.atomic();
 * const parts = setLargeValue(op, ["records_data", id], record);
 * await op.set(["records", id], { parts }).commit();
 * ```
 */
export function setLargeValue(
  op: Deno.AtomicOperation,
  prefix: Deno.KvKey,
  value: unknown,
): number {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  if (bytes.length > MAX_LARGE_VALUE_BYTES) {
    throw new ValueTooLargeError(
      `Value of ${bytes.length} bytes exceeds the ${MAX_LARGE_VALUE_BYTES}-byte limit`,
    );
  }
  const parts = Math.max(1, Math.ceil(bytes.length / PART_BYTES));
  for (let i = 0; i < parts; i++) {
    op.set([...prefix, i], bytes.subarray(i * PART_BYTES, (i + 1) * PART_BYTES));
  }
  return parts;
}

/** Reads a value written by {@link setLargeValue}, or null when absent. */
export async function getLargeValue<T>(kv: Deno.Kv, prefix: Deno.KvKey): Promise<T | null> {
  const parts: Uint8Array[] = [];
  for await (const entry of kv.list<Uint8Array>({ prefix })) parts.push(entry.value);
  return parts.length === 0 ? null : parseLargeValue<T>(parts);
}

/** The value of the `parts` of a large value, read in order. */
export function parseLargeValue<T>(parts: Uint8Array[]): T {
  return JSON.parse(utf8Decode(concatBytes(...parts))) as T;
}

/** Adds the deletion of a value's `parts` parts to `op`. */
export function deleteLargeValue(op: Deno.AtomicOperation, prefix: Deno.KvKey, parts: number) {
  for (let i = 0; i < parts; i++) op.delete([...prefix, i]);
}
