/**
 * Records: the saved, decrypted values of a form, by field id. The rules every record write
 * follows (size, timestamps, owned files); storage is the records port
 * (src/store/ports/records.ts), which commits every insert, update and delete with exactly one
 * record event (src/events).
 *
 * @module
 */
export type { VaultRecord } from "../store/ports/records.ts";

/**
 * Largest record values, as JSON bytes. The record and its event snapshot are written in one
 * atomic operation (at most 800 KiB), so each gets well under half of it.
 */
export const MAX_RECORD_BYTES = 320 * 1024;

/** Record values over {@link MAX_RECORD_BYTES}. */
export class RecordTooLargeError extends Error {
  override name = "RecordTooLargeError";
}

/**
 * A UTC timestamp with seven fractional digits and offset, as webhook bodies carry it.
 *
 * @example
 * ```ts
 * savedAtOf(new Date("2025-01-31T12:00:00.123Z")); // "2025-01-31T12:00:00.1230000+00:00"
 * ```
 */
export function savedAtOf(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$10000+00:00");
}

/**
 * The `savedAt` of a record's next change: now, or, when the previous change was saved in the
 * same millisecond (or the clock went back), one tick (100 ns) after it, so a record's saved
 * versions never share a time.
 *
 * @example
 * ```ts
 * nextSavedAt("2999-01-31T12:00:00.1230000+00:00"); // "2999-01-31T12:00:00.1230001+00:00"
 * ```
 */
export function nextSavedAt(previous: string | undefined, now = new Date()): string {
  const at = savedAtOf(now);
  const ticks = Number(previous?.slice(23, 27));
  if (!previous || at > previous || !(ticks < 9999)) return at;
  return `${previous.slice(0, 23)}${String(ticks + 1).padStart(4, "0")}${previous.slice(27)}`;
}

/**
 * The hashes of owned file references (uploaded through the slot flow) among `values`.
 *
 * @example
 * ```ts
 * ownedHashes({ photo: { owned: true, hash: "ab…" }, name: "Ada" }); // ["ab…"]
 * ```
 */
export function ownedHashes(values: Record<string, unknown>): string[] {
  const out = new Set<string>();
  for (const value of Object.values(values)) {
    const ref = value as { owned?: unknown; hash?: unknown } | null;
    if (ref && typeof ref === "object" && ref.owned === true && typeof ref.hash === "string") {
      out.add(ref.hash);
    }
  }
  return [...out];
}

/**
 * The name a record's claims on its files carry at the relay.
 *
 * @example
 * ```ts
 * recordClaimant("f12", "a1b2"); // "f12/a1b2"
 * ```
 */
export function recordClaimant(formId: string, recordId: string): string {
  return `${formId}/${recordId}`;
}

/** The size check every write goes through; returns the values' size in JSON bytes. */
export function checkRecordSize(values: Record<string, unknown>): number {
  const bytes = new TextEncoder().encode(JSON.stringify(values)).length;
  if (bytes > MAX_RECORD_BYTES) {
    throw new RecordTooLargeError(
      `Record values of ${bytes} bytes exceed the ${MAX_RECORD_BYTES}-byte limit`,
    );
  }
  return bytes;
}
