/**
 * Records: the saved, decrypted values of a form, by field id. Every insert, update and delete
 * commits together with exactly one record event (src/events) in one atomic operation.
 *
 * Layout: a head row (`vaultKeys.record`) and the values as a large value
 * (`vaultKeys.recordValues`), so values above one KV entry fit.
 *
 * @module
 */
import {
  announceRecordEvents,
  emitRecordEvent,
  newEventId,
  type RecordReason,
  type StoredRecordEvent,
} from "../events/record_event.ts";
import { Conflict, NotFound } from "../errors/index.ts";
import { readPage } from "../http/ids.ts";
import { deleteParts, readJsonParts, writeJsonParts } from "../store/parts.ts";
import { KvWrite } from "../store/write.ts";
import { indexDelete, indexInsert } from "./record_index.ts";
import {
  type VaultFileReleaseRow,
  vaultKeys,
  type VaultRecordRow,
  type VaultRecordVersionRow,
} from "../store/keys.ts";

/**
 * Largest record values, as JSON bytes. The record and its event snapshot are written in one
 * atomic operation (at most 800 KiB), so each gets well under half of it.
 */
export const MAX_RECORD_BYTES = 320 * 1024;

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

/**
 * Adds a release of `hashes` (files `recordId` no longer refers to) to `op`, when any; see
 * `file_release.ts`.
 */
export function addFileRelease(
  op: KvWrite,
  formId: string,
  recordId: string,
  hashes: string[],
): void {
  if (hashes.length === 0) return;
  const row: VaultFileReleaseRow = { formId, recordId, hashes };
  op.set(vaultKeys.fileRelease(newEventId()), row);
}

/** Values up to this many JSON bytes live in the record's head row (one write less). */
const INLINE_VALUES_BYTES = 16 * 1024;

/**
 * Versions of values up to this many JSON bytes keep a copy of their values in the record's
 * history (one KV entry each); larger ones keep their metadata only.
 */
export const MAX_HISTORY_VALUES_BYTES = 48 * 1024;

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

/** What a write stores. */
export interface RecordWrite {
  formId: string;
  recordId: string;
  schemaVersion: number;
  values: Record<string, unknown>;
  submissionId: string | null;
  appliedVersion: number;
}

/**
 * Adds an insert (when `current` is null) or an update of a record to `op`, with its event.
 * The caller checks `current`'s versionstamp in `op`, commits, then announces the event
 * (`announceRecordEvents`). `bytes` is what {@link checkRecordSize} returned for the values,
 * when the caller has checked them already.
 */
export function addRecordWrite(
  op: KvWrite,
  current: VaultRecordRow | null,
  write: RecordWrite,
  bytes = checkRecordSize(write.values),
): StoredRecordEvent {
  const savedAt = savedAtOf(new Date());
  const valuesKey = vaultKeys.recordValues(write.formId, write.recordId);
  const inline = bytes <= INLINE_VALUES_BYTES;
  const parts = inline ? 0 : writeJsonParts(op, valuesKey, write.values);
  deleteParts(op, valuesKey, current?.parts ?? 0, parts);
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
  op.set(vaultKeys.record(write.formId, write.recordId), row);
  if (current) {
    const dropped = (current.files ?? []).filter((hash) => !files.includes(hash));
    addFileRelease(op, write.formId, write.recordId, dropped);
  } else indexInsert(op, row);
  const version: VaultRecordVersionRow = {
    savedAt,
    reason: current ? "update" : "insert",
    schemaVersion: write.schemaVersion,
    submissionVersion: write.appliedVersion,
    values: bytes <= MAX_HISTORY_VALUES_BYTES ? write.values : null,
  };
  op.set(vaultKeys.recordVersion(write.formId, write.recordId, savedAt), version);
  return emit(op, current ? "update" : "insert", row, write.values);
}

function emit(
  op: KvWrite,
  reason: RecordReason,
  row: VaultRecordRow,
  values: Record<string, unknown>,
): StoredRecordEvent {
  return emitRecordEvent(op, {
    eventId: newEventId(),
    reason,
    recordId: row.recordId,
    formId: row.formId,
    schemaVersion: row.schemaVersion,
    savedAt: row.savedAt,
    values,
  });
}

/** The head row of a record, with its versionstamp. */
export function getRecordEntry(
  kv: Deno.Kv,
  formId: string,
  recordId: string,
): Promise<Deno.KvEntryMaybe<VaultRecordRow>> {
  return kv.get<VaultRecordRow>(vaultKeys.record(formId, recordId));
}

/** The record of a head, its values read when they are not inline. */
export async function recordOf(kv: Deno.Kv, row: VaultRecordRow): Promise<VaultRecord> {
  const values = row.values ?? await readJsonParts<Record<string, unknown>>(
    kv,
    vaultKeys.recordValues(row.formId, row.recordId),
  ) ?? {};
  return {
    _recordId: row.recordId,
    _formId: row.formId,
    _savedAt: row.savedAt,
    _createdAt: row.createdAt,
    _schemaVersion: row.schemaVersion,
    _submissionId: row.submissionId,
    values,
  };
}

/** A record, or a 404 naming it. */
export async function getRecord(
  kv: Deno.Kv,
  formId: string,
  recordId: string,
): Promise<VaultRecord> {
  const entry = await getRecordEntry(kv, formId, recordId);
  if (!entry.value || entry.value.deletedAt) throw notFound(formId, recordId);
  return await recordOf(kv, entry.value);
}

function notFound(formId: string, recordId: string) {
  return new NotFound(
    "record_not_found",
    `No record "${recordId}" in form "${formId}"`,
    "recordId",
  );
}

/**
 * A page of a form's records in record-id order, and the cursor of the next page. Tombstones
 * of deleted records are skipped, so a page can hold fewer than `limit` records while more
 * follow: the end is a null `nextCursor`.
 */
export async function listRecords(
  kv: Deno.Kv,
  formId: string,
  cursor: string | undefined,
  limit: number,
): Promise<{ items: VaultRecord[]; nextCursor: string | null }> {
  const iter = kv.list<VaultRecordRow>({ prefix: vaultKeys.records(formId) }, { limit, cursor });
  const entries = await readPage(iter);
  const read = entries.length;
  const heads = entries.map((entry) => entry.value).filter((row) => !row.deletedAt);
  const items = await Promise.all(heads.map((row) => recordOf(kv, row)));
  return { items, nextCursor: read === limit ? iter.cursor : null };
}

/**
 * Every saved version of a record, oldest first (at most `limit`).
 *
 * @example
 * ```ts
 * const versions = await recordVersions(kv, "contact", recordId);
 * ```
 */
export async function recordVersions(
  kv: Deno.Kv,
  formId: string,
  recordId: string,
  limit = 200,
): Promise<VaultRecordVersionRow[]> {
  const out: VaultRecordVersionRow[] = [];
  const prefix = vaultKeys.recordVersions(formId, recordId);
  for await (const entry of kv.list<VaultRecordVersionRow>({ prefix }, { limit })) {
    out.push(entry.value);
  }
  return out;
}

/**
 * Writes with an optimistic check on the record head, retried on a concurrent change.
 * `build` gets the current head (null for none, or a deleted record's tombstone), adds the
 * whole change to `op` and returns its event, which is announced once committed.
 */
export async function commitRecordChange(
  kv: Deno.Kv,
  formId: string,
  recordId: string,
  build: (
    op: KvWrite,
    current: VaultRecordRow | null,
  ) => Promise<StoredRecordEvent> | StoredRecordEvent,
): Promise<void> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const entry = await getRecordEntry(kv, formId, recordId);
    const op = new KvWrite().check(entry);
    const event = await build(op, entry.value?.deletedAt ? null : entry.value);
    if (await op.commit(kv)) return announceRecordEvents(kv, [event]);
  }
  throw new Conflict("conflict", `Record "${recordId}" kept changing; try again`);
}

/**
 * Deletes a record with its `delete` event, and queues the release of its files (see
 * `file_release.ts`). A submission's record leaves its head as a tombstone (no values, no
 * files), so a late re-delivery of the same envelope does not bring it back.
 */
export async function deleteRecord(kv: Deno.Kv, formId: string, recordId: string): Promise<void> {
  await commitRecordChange(kv, formId, recordId, async (op, current) => {
    if (!current) throw notFound(formId, recordId);
    const { values } = await recordOf(kv, current);
    indexDelete(op, current);
    deleteParts(op, vaultKeys.recordValues(formId, recordId), current.parts);
    addFileRelease(op, formId, recordId, current.files ?? []);
    for await (const v of kv.list({ prefix: vaultKeys.recordVersions(formId, recordId) })) {
      op.delete(v.key);
    }
    const key = vaultKeys.record(formId, recordId);
    if (current.submissionId) {
      const { values: _values, files: _files, ...head } = current;
      op.set(key, { ...head, parts: 0, deletedAt: new Date().toISOString() });
    } else op.delete(key);
    return emit(op, "delete", { ...current, savedAt: savedAtOf(new Date()) }, values);
  });
}
