/**
 * The port of the vault's records: each record's head and values, its saved versions, the
 * form's records-by-time index and counts, and with every change its record event (the
 * webhook outbox row) and, when files were dropped, a file release, all in one atomic write.
 *
 * @module
 */
import type { RecordEvent } from "./record_events.ts";

import type { WritePart } from "./write_part.ts";

/** One saved version of a record: what an insert or an update (amendment) wrote. */
export interface RecordVersion {
  savedAt: string;
  reason: "insert" | "update";
  schemaVersion: number;
  /** The submission version applied (1 the original, 2+ amendments; 0 owner-made). */
  submissionVersion: number;
  /** The values, or null when they were too large to keep a second copy of. */
  values: Record<string, unknown> | null;
}

/** A record as the owner API shows it. */
export interface VaultRecord {
  _recordId: string;
  _formId: string;
  /** `yyyy-MM-ddTHH:mm:ss.fffffff+00:00` of the latest change. */
  _savedAt: string;
  _createdAt: string;
  _schemaVersion: number;
  _submissionId: string | null;
  /** Values by field id. */
  values: Record<string, unknown>;
}

/** What a record's head tells without its values. */
export interface RecordHead {
  recordId: string;
  formId: string;
  schemaVersion: number;
  savedAt: string;
  createdAt: string;
  /** The submission it came from (null for records the owner created). */
  submissionId: string | null;
  /** The newest submission version applied (0 for owner-created records). */
  appliedVersion: number;
  /** Hashes of the owned files its values refer to. */
  files: string[];
}

/** What a write stores. */
export interface RecordWrite {
  formId: string;
  recordId: string;
  schemaVersion: number;
  values: Record<string, unknown>;
  submissionId: string | null;
  appliedVersion: number;
}

/** A record met by {@link RecordsPort.scan}: its head, its values read on demand. */
export interface ScannedRecord {
  head: RecordHead;
  values(): Promise<Record<string, unknown>>;
}

/** A page of the records-by-time index. */
export interface TimePageOptions {
  /** `YYYY-MM-DD`: created on or after (UTC); empty for no bound. */
  from: string;
  /** `YYYY-MM-DD`: created on or before (UTC); empty for no bound. */
  to: string;
  /** Oldest first instead of newest first. */
  oldest: boolean;
  /** The previous page's `nextCursor`. */
  cursor?: string;
  limit: number;
}

/** A cursor that is not one of the list's own (`nextCursor` of an earlier page of it). */
export class InvalidCursorError extends Error {
  override name = "InvalidCursorError";
}

/** What became of a submission's envelope version: see {@link RecordsPort.applySubmission}. */
export type SubmissionOutcome = "record" | "duplicate" | "missing" | "deleted";

/**
 * Storage of records. Every insert, update and delete commits with exactly one record event
 * (announced in this process once committed: {@link RecordsPort.onEvents}), the index entry and
 * counts, and the release of files it no longer refers to, in one atomic write. A deleted
 * record a submission made stays as a tombstone, so its envelope cannot bring it back; reads
 * never show tombstones. Page cursors are opaque strings of `A-Z a-z 0-9 - _`; one that is not
 * the list's own throws {@link InvalidCursorError}. Values above {@link MAX_RECORD_BYTES} throw
 * {@link RecordTooLargeError} with nothing written; {@link checkRecordSize},
 * {@link nextSavedAt} and {@link ownedHashes} are the rules every backend's writes apply.
 *
 * @example
 * ```ts
 * await records.write(formId, recordId, () => ({ formId, recordId, ...rest }));
 * await records.get(formId, recordId); // the record
 * ```
 */
export interface RecordsPort {
  /**
   * Calls `listener` with the events of this process's committed changes, each after its
   * commit (other processes' changes reach the outbox, not this); answers the unsubscribe.
   */
  onEvents(listener: (events: RecordEvent[]) => void): () => void;

  /** The live record, or null (none, or a tombstone). */
  get(formId: string, recordId: string): Promise<VaultRecord | null>;

  /** The live records among `ids`, in the order of `ids` (missing ones left out). */
  getMany(formId: string, ids: string[]): Promise<VaultRecord[]>;

  /**
   * A page of a form's records in record-id order after `cursor`, and the next page's cursor
   * (null at the end). Tombstones are skipped, so a page may hold fewer than `limit` records
   * while more follow.
   */
  list(
    formId: string,
    cursor: string | undefined,
    limit: number,
  ): Promise<{ items: VaultRecord[]; nextCursor: string | null }>;

  /** Every live record's head, in record-id order, values read on demand (bounded memory). */
  scan(formId: string): AsyncIterable<ScannedRecord>;

  /** A record's saved versions, oldest first (at most `limit`); none once it is deleted. */
  versions(formId: string, recordId: string, limit: number): Promise<RecordVersion[]>;

  /** A form's live record count. */
  count(formId: string): Promise<number>;

  /** Records created per UTC day from `from` to `to` (inclusive), days with none left out. */
  perDay(formId: string, from: string, to: string): Promise<Map<string, number>>;

  /** A page of live record ids by creation time, and the next page's cursor (null: the end). */
  idsByTime(
    formId: string,
    options: TimePageOptions,
  ): Promise<{ ids: string[]; nextCursor: string | null }>;

  /**
   * Inserts or updates a record, optimistically: `change` gets the live head (null for none or
   * a tombstone) and returns what to store; written (an `insert` or `update` event, a saved
   * version, a release of dropped files) only when the head has not changed since, else
   * `change` runs again (ten tries), then "conflict". Errors `change` throws propagate with
   * nothing written.
   */
  write(
    formId: string,
    recordId: string,
    change: (current: RecordHead | null) => RecordWrite | Promise<RecordWrite>,
  ): Promise<"saved" | "conflict">;

  /**
   * Deletes a live record with its `delete` event, its saved versions and the release of its
   * files; a submission's record leaves a tombstone. "missing" when there is no live record;
   * "conflict" when it kept changing.
   */
  delete(formId: string, recordId: string): Promise<"deleted" | "missing" | "conflict">;

  /**
   * Deletes every record of a form created before `cutoff` (a `savedAt`-format time), each
   * exactly as {@link delete} does; returns how many.
   */
  deleteCreatedBefore(formId: string, cutoff: string): Promise<number>;

  /**
   * Saves an envelope version of a submission (`write.recordId` is its submission id and
   * `write.appliedVersion` its version), with `parts` (its ack, the removal of a quarantine
   * row) in the same atomic write. "record": saved (version 1 inserts, later versions update);
   * "duplicate": the record holds this version or a newer one (`parts` still committed);
   * "missing": an amendment with no record; "deleted": the record is a tombstone. Nothing is
   * written for "missing" and "deleted". Concurrent calls for one submission are serialised by
   * the caller; writes of different submissions may share one commit.
   */
  applySubmission(write: RecordWrite, parts: WritePart[]): Promise<SubmissionOutcome>;

  /**
   * A part that queues the release of `claimed` files except those the live record
   * `recordId` refers to, and that fails its write if the record changes before it commits.
   */
  releaseUnkept(formId: string, recordId: string, claimed: string[]): Promise<WritePart>;
}

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
