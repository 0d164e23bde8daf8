/**
 * Values stored in parts: bytes (or JSON) larger than one Deno KV value (64 KiB), split into
 * numbered parts under a prefix. The one place that splits and joins them.
 *
 * Writers add the parts to their own {@link KvWrite}, so a value is written together with
 * whatever refers to it; the part count is kept beside the reference (to delete the parts).
 *
 * @module
 */
import { concatBytes, utf8Decode } from "../../crypto/encoding.ts";
import { MAX_LARGE_VALUE_BYTES, PART_BYTES, partCount } from "../ports/limits.ts";
import { KvWrite } from "./write.ts";

/** Thrown when a JSON value is over `MAX_LARGE_VALUE_BYTES` (src/store/ports/limits.ts). */
export class ValueTooLargeError extends Error {
  override name = "ValueTooLargeError";
}

/**
 * Adds the parts of `bytes` under `prefix` to `w`; returns their count.
 *
 * @example
 * ```ts
 * const w = new KvWrite();
 * const parts = writeParts(w, ["blob", id], bytes);
 * w.set(["ref", id], { parts });
 * ```
 */
export function writeParts(w: KvWrite, prefix: Deno.KvKey, bytes: Uint8Array): number {
  const parts = partCount(bytes.length);
  for (let i = 0; i < parts; i++) {
    w.set([...prefix, i], bytes.subarray(i * PART_BYTES, (i + 1) * PART_BYTES));
  }
  return parts;
}

/** Adds `value` as JSON in parts under `prefix` to `w`; returns the part count. */
export function writeJsonParts(w: KvWrite, prefix: Deno.KvKey, value: unknown): number {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  if (bytes.length > MAX_LARGE_VALUE_BYTES) {
    throw new ValueTooLargeError(
      `Value of ${bytes.length} bytes exceeds the ${MAX_LARGE_VALUE_BYTES}-byte limit`,
    );
  }
  return writeParts(w, prefix, bytes);
}

/** The bytes stored under `prefix` (parts joined in order), or null when there are none. */
export async function readParts(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Uint8Array | null> {
  const parts: Uint8Array[] = [];
  for await (const entry of kv.list<Uint8Array>({ prefix })) parts.push(entry.value);
  return parts.length === 0 ? null : joinParts(parts);
}

/** The JSON value stored under `prefix`, or null when there is none. */
export async function readJsonParts<T>(kv: Deno.Kv, prefix: Deno.KvKey): Promise<T | null> {
  const bytes = await readParts(kv, prefix);
  return bytes === null ? null : JSON.parse(utf8Decode(bytes)) as T;
}

/** The JSON value of `parts` read in order (by a caller that listed them itself). */
export function parseJsonParts<T>(parts: Uint8Array[]): T {
  return JSON.parse(utf8Decode(joinParts(parts))) as T;
}

/** Adds the deletion of `count` parts under `prefix` (from part `from`) to `w`. */
export function deleteParts(w: KvWrite, prefix: Deno.KvKey, count: number, from = 0): void {
  for (let i = from; i < count; i++) w.delete([...prefix, i]);
}

function joinParts(parts: Uint8Array[]): Uint8Array {
  return parts.length === 1 ? parts[0] : concatBytes(...parts);
}

/** Parts per commit when a value is too large for one atomic operation. */
const PARTS_PER_STEP = 10;

/**
 * Writes the parts of `bytes` under `prefix` in several commits (for values larger than one
 * atomic operation may hold); returns the part count. Not atomic: the caller marks the parts
 * as staged first and commits the reference to them after.
 */
export async function writePartsInSteps(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  bytes: Uint8Array,
): Promise<number> {
  const parts = partCount(bytes.length);
  for (let start = 0; start < parts; start += PARTS_PER_STEP) {
    const w = new KvWrite();
    for (let i = start; i < Math.min(parts, start + PARTS_PER_STEP); i++) {
      w.set([...prefix, i], bytes.subarray(i * PART_BYTES, (i + 1) * PART_BYTES));
    }
    await w.commit(kv);
  }
  return parts;
}
