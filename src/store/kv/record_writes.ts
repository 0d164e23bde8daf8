/**
 * What one record change adds to a Deno KV write: the head (values inline up to 16 KiB, else
 * in parts), a saved version, the records-by-time index entry and counts, the release of
 * dropped files, and the record event (the webhook outbox row).
 *
 * @module
 */
import { emitRecordEvent } from "./record_events.ts";
import { newEventId, type StoredRecordEvent } from "../ports/record_events.ts";
import {
  nextSavedAt,
  ownedHashes,
  type RecordHead,
  type RecordVersion,
  type RecordWrite,
  savedAtOf,
  type VaultRecord,
} from "../ports/records.ts";
import type { VaultFileReleaseRow } from "./file_releases.ts";
import { vaultKeys } from "./keys.ts";
import { deleteParts, readJsonParts, writeJsonParts } from "./parts.ts";
import type { KvWrite } from "./write.ts";

/**
 * A record's head as Deno KV keeps it: the port's head, with its values inline or as a large
 * value under `vaultKeys.recordValues`.
 */
export interface VaultRecordRow extends Omit<RecordHead, "files"> {
  /** The values, when small enough to live in this row (else absent, and parts). */
  values?: Record<string, unknown>;
  /** Parts of larger values under `vaultKeys.recordValues` (0 when inline). */
  parts: number;
  /** Hashes of the owned files its values refer to (absent: none). */
  files?: string[];
  /**
   * When a submission's record was deleted: the head stays as a tombstone (no values) so a late
   * re-delivery of the same envelope cannot bring the record back. Absent on live records.
   */
  deletedAt?: string;
}

/** Values up to this many JSON bytes live in the record's head row (one write less). */
const INLINE_VALUES_BYTES = 16 * 1024;

/**
 * Versions of values up to this many JSON bytes keep a copy of their values in the record's
 * history (one entry each); larger ones keep their metadata only.
 */
const MAX_HISTORY_VALUES_BYTES = 48 * 1024;

/** Subtracts one from a `Deno.KvU64` through `sum` (which wraps modulo 2^64). */
const MINUS_ONE = 0xffff_ffff_ffff_ffffn;

/** The head of a stored row, as the port shows it. */
export function headOf(row: VaultRecordRow): RecordHead {
  return {
    recordId: row.recordId,
    formId: row.formId,
    schemaVersion: row.schemaVersion,
    savedAt: row.savedAt,
    createdAt: row.createdAt,
    submissionId: row.submissionId,
    appliedVersion: row.appliedVersion,
    files: row.files ?? [],
  };
}

/** The record of a head row, its values read from their parts when not inline. */
export async function recordOf(kv: Deno.Kv, row: VaultRecordRow): Promise<VaultRecord> {
  return {
    _recordId: row.recordId,
    _formId: row.formId,
    _savedAt: row.savedAt,
    _createdAt: row.createdAt,
    _schemaVersion: row.schemaVersion,
    _submissionId: row.submissionId,
    values: await valuesOf(kv, row),
  };
}

/** The values of a head row. */
export async function valuesOf(kv: Deno.Kv, row: VaultRecordRow) {
  return row.values ?? await readJsonParts<Record<string, unknown>>(
    kv,
    vaultKeys.recordValues(row.formId, row.recordId),
  ) ?? {};
}

/** Adds a release of `hashes` (files `recordId` no longer refers to) to `w`, when any. */
export function addFileRelease(w: KvWrite, formId: string, recordId: string, hashes: string[]) {
  if (hashes.length === 0) return;
  const row: VaultFileReleaseRow = { formId, recordId, hashes };
  w.set(vaultKeys.fileRelease(newEventId()), row);
}

/** A live record's head with its values, as a write replaces it. */
export interface CurrentRecord {
  row: VaultRecordRow;
  values: Record<string, unknown>;
}

/** The head `row` (with its `values`) as a saved version. */
export function versionOf(
  row: VaultRecordRow,
  values: Record<string, unknown>,
): RecordVersion {
  const bytes = row.values ? 0 : new TextEncoder().encode(JSON.stringify(values)).length;
  return {
    savedAt: row.savedAt,
    // Every change after the first is saved later than the record's creation (nextSavedAt).
    reason: row.savedAt === row.createdAt ? "insert" : "update",
    schemaVersion: row.schemaVersion,
    submissionVersion: row.appliedVersion,
    values: bytes <= MAX_HISTORY_VALUES_BYTES ? values : null,
  };
}

/**
 * Adds an insert (when `previous` is null) or an update of a record to `w`, with its event;
 * `bytes` is the values' size in JSON bytes. The caller checks the head's entry in `w`. The
 * head is the record's newest saved version: an update saves the version it replaces.
 */
export function addRecordWrite(
  w: KvWrite,
  previous: CurrentRecord | null,
  write: RecordWrite,
  bytes: number,
): StoredRecordEvent {
  const current = previous?.row ?? null;
  const savedAt = nextSavedAt(current?.savedAt);
  const valuesKey = vaultKeys.recordValues(write.formId, write.recordId);
  const inline = bytes <= INLINE_VALUES_BYTES;
  const parts = inline ? 0 : writeJsonParts(w, valuesKey, write.values);
  deleteParts(w, valuesKey, current?.parts ?? 0, parts);
  const files = ownedHashes(write.values);
  const row: VaultRecordRow = {
    recordId: write.recordId,
    formId: write.formId,
    schemaVersion: write.schemaVersion,
    savedAt,
    createdAt: current?.createdAt ?? savedAt,
    submissionId: write.submissionId,
    appliedVersion: write.appliedVersion,
    ...(inline ? { values: write.values } : {}),
    parts,
    ...(files.length > 0 ? { files } : {}),
  };
  w.set(vaultKeys.record(write.formId, write.recordId), row);
  if (current) {
    const dropped = (current.files ?? []).filter((hash) => !files.includes(hash));
    addFileRelease(w, write.formId, write.recordId, dropped);
    const replaced = versionOf(current, previous!.values);
    w.set(vaultKeys.recordVersion(write.formId, write.recordId, current.savedAt), replaced);
  } else {
    w.set(vaultKeys.recordByTime(row.formId, row.createdAt, row.recordId), true);
    w.sum(vaultKeys.recordCount(row.formId), 1n);
    w.sum(vaultKeys.recordDay(row.formId, row.createdAt.slice(0, 10)), 1n);
  }
  return emitRecordEvent(w, {
    eventId: newEventId(),
    reason: current ? "update" : "insert",
    recordId: row.recordId,
    formId: row.formId,
    schemaVersion: row.schemaVersion,
    savedAt,
    values: write.values,
  });
}

/**
 * Adds the delete of the live record `current` (its `values`) to `w`, with its event: index
 * entry and counts, value parts, saved versions (`versionKeys`), a release of its files; a
 * submission's record leaves its head as a tombstone.
 */
export function addRecordDelete(
  w: KvWrite,
  current: VaultRecordRow,
  values: Record<string, unknown>,
  versionKeys: Deno.KvKey[],
): StoredRecordEvent {
  const { formId, recordId } = current;
  w.delete(vaultKeys.recordByTime(formId, current.createdAt, recordId));
  w.sum(vaultKeys.recordCount(formId), MINUS_ONE);
  w.sum(vaultKeys.recordDay(formId, current.createdAt.slice(0, 10)), MINUS_ONE);
  deleteParts(w, vaultKeys.recordValues(formId, recordId), current.parts);
  addFileRelease(w, formId, recordId, current.files ?? []);
  for (const key of versionKeys) w.delete(key);
  const key = vaultKeys.record(formId, recordId);
  if (current.submissionId) {
    const { values: _values, files: _files, ...head } = current;
    w.set(key, { ...head, parts: 0, deletedAt: new Date().toISOString() });
  } else w.delete(key);
  return emitRecordEvent(w, {
    eventId: newEventId(),
    reason: "delete",
    recordId,
    formId,
    schemaVersion: current.schemaVersion,
    savedAt: savedAtOf(new Date()),
    values,
  });
}
