/**
 * What record changes write on PostgreSQL: the head row in `vault_records` (a new `rev` with
 * every write), the version a change replaces in `vault_record_versions`, the release of
 * dropped files in `vault_file_releases`, and the record event (record_event_rows.ts), as
 * multi-row statements over any number of changes at once (one owner edit, or a group commit
 * of ingest's writes).
 *
 * @module
 */
import { newEventId, type RecordEvent } from "../ports/record_events.ts";
import {
  nextSavedAt,
  ownedHashes,
  type RecordHead,
  type RecordWrite,
  savedAtOf,
} from "../ports/records.ts";
import { PgCheckFailedError } from "./check_failed.ts";
import type { Sql, Tx } from "./db.ts";
import { insertRecordEvents } from "./record_event_rows.ts";

/**
 * Versions of values up to this many JSON bytes keep a copy of their values in the record's
 * history; larger ones keep their metadata only (as on Deno KV).
 */
const MAX_HISTORY_VALUES_BYTES = 48 * 1024;

/** A record's head row as stored, without its values. */
export interface HeadRow {
  form_id: string;
  record_id: string;
  schema_version: number;
  saved_at: string;
  created_at: string;
  submission_id: string | null;
  applied_version: number;
  value_bytes: number;
  files: string[];
  /** Set on a submission's deleted record (a tombstone). */
  deleted_at: string | null;
  rev: number;
}

/** The columns of a {@link HeadRow}, for a select of `vault_records`. */
export function headColumns(q: Sql | Tx) {
  return q`form_id, record_id, schema_version, saved_at, created_at, submission_id,
    applied_version, value_bytes, files, deleted_at, rev`;
}

/** The head of a stored row, as the port shows it. */
export function headOf(row: HeadRow): RecordHead {
  return {
    recordId: row.record_id,
    formId: row.form_id,
    schemaVersion: row.schema_version,
    savedAt: row.saved_at,
    createdAt: row.created_at,
    submissionId: row.submission_id,
    appliedVersion: row.applied_version,
    files: row.files,
  };
}

/** Why a head's saved version was written: its first save or a later change. */
export function reasonOf(row: { saved_at: string; created_at: string }): "insert" | "update" {
  // Every change after the first is saved later than the record's creation (nextSavedAt).
  return row.saved_at === row.created_at ? "insert" : "update";
}

/** Values a saved version keeps (null when too large to keep a second copy of). */
export function keptValues<T>(bytes: number, values: T): T | null {
  return bytes <= MAX_HISTORY_VALUES_BYTES ? values : null;
}

/** One planned insert or update of a record head, with what it writes beside it. */
export interface RecordPlan {
  write: RecordWrite;
  /** The values' JSON bytes. */
  bytes: number;
  /** The stored head it replaces (a live record or a tombstone), or null for none. */
  previous: HeadRow | null;
  /** Write only when the head still has this `rev` (null: the caller holds the row's lock). */
  expectRev: number | null;
  savedAt: string;
  createdAt: string;
  files: string[];
  /** Files the previous live record referred to and this one does not. */
  dropped: string[];
  event: RecordEvent;
}

/**
 * Plans writing `write` (of `bytes` JSON bytes) over the stored head `previous`; a tombstone
 * is replaced as if there were no record.
 */
export function planWrite(
  previous: HeadRow | null,
  write: RecordWrite,
  bytes: number,
  expectRev: number | null,
): RecordPlan {
  const live = previous && !previous.deleted_at ? previous : null;
  const savedAt = nextSavedAt(live?.saved_at);
  const files = ownedHashes(write.values);
  return {
    write,
    bytes,
    previous,
    expectRev,
    savedAt,
    createdAt: live?.created_at ?? savedAt,
    files,
    dropped: (live?.files ?? []).filter((hash) => !files.includes(hash)),
    event: {
      eventId: newEventId(),
      reason: live ? "update" : "insert",
      recordId: write.recordId,
      formId: write.formId,
      schemaVersion: write.schemaVersion,
      savedAt,
      values: write.values,
    },
  };
}

/** The head a plan leaves, as the next plan of the same record (in one transaction) sees it. */
export function headAfter(plan: RecordPlan): HeadRow {
  const { write } = plan;
  return {
    form_id: write.formId,
    record_id: write.recordId,
    schema_version: write.schemaVersion,
    saved_at: plan.savedAt,
    created_at: plan.createdAt,
    submission_id: write.submissionId,
    applied_version: write.appliedVersion,
    value_bytes: plan.bytes,
    files: plan.files,
    deleted_at: null,
    rev: -1,
  };
}

/** Rows as one JSON parameter, read back with `json_to_recordset` (values kept as written). */
function recordset(rows: unknown[]): string {
  return JSON.stringify(rows);
}

/** Queues the release of files records no longer refer to (releases with none are skipped). */
export async function insertReleases(
  tx: Tx,
  releases: { formId: string; recordId: string; hashes: string[] }[],
): Promise<void> {
  const rows = releases.filter((r) => r.hashes.length > 0).map((r) => ({
    id: newEventId(),
    form_id: r.formId,
    record_id: r.recordId,
    hashes: r.hashes,
  }));
  if (rows.length === 0) return;
  await tx`insert into vault_file_releases (id, form_id, record_id, hashes)
    select * from json_to_recordset(${recordset(rows)}::text::json)
      as x(id text, form_id text, record_id text, hashes jsonb)`;
}

/**
 * Writes `plans` (at most one per record) in `tx`: saved versions of the live heads they
 * replace, the heads, file releases and events. Throws {@link PgCheckFailedError} when a head
 * changed (a `rev` no longer matches, or a record to insert exists): nothing of `tx` may
 * commit then.
 */
export async function writePlans(tx: Tx, plans: readonly RecordPlan[]): Promise<void> {
  const row = (plan: RecordPlan) => ({
    form_id: plan.write.formId,
    record_id: plan.write.recordId,
    schema_version: plan.write.schemaVersion,
    saved_at: plan.savedAt,
    created_at: plan.createdAt,
    submission_id: plan.write.submissionId,
    applied_version: plan.write.appliedVersion,
    values: plan.write.values,
    value_bytes: plan.bytes,
    files: plan.files,
    expect_rev: plan.expectRev,
  });
  const expected = plans.filter((p) => p.expectRev !== null).map(row);
  if (expected.length > 0) {
    // Lock the heads first (as a batch does), so a write never holds a version's key while
    // waiting for a head another writer holds.
    const locked = await tx`
      select r.record_id from vault_records r
      join json_to_recordset(${recordset(expected)}::text::json)
        as x(form_id text, record_id text, expect_rev bigint)
        on r.form_id = x.form_id and r.record_id = x.record_id and r.rev = x.expect_rev
      order by r.form_id, r.record_id
      for update of r`;
    if (locked.length !== expected.length) throw new PgCheckFailedError("A record changed");
  }
  const inserts = plans.filter((p) => !p.previous).map(row);
  const updates = plans.filter((p) => p.previous).map(row);
  const replacedLive = plans.filter((p) => p.previous && !p.previous.deleted_at).map(row);
  if (replacedLive.length > 0) {
    await tx`
      insert into vault_record_versions
        (form_id, record_id, saved_at, reason, schema_version, submission_version, "values")
      select r.form_id, r.record_id, r.saved_at,
        case when r.saved_at = r.created_at then 'insert' else 'update' end,
        r.schema_version, r.applied_version,
        case when r.value_bytes <= ${MAX_HISTORY_VALUES_BYTES} then r."values" end
      from vault_records r
      join json_to_recordset(${recordset(replacedLive)}::text::json)
        as x(form_id text, record_id text, expect_rev bigint)
        on r.form_id = x.form_id and r.record_id = x.record_id
      where x.expect_rev is null or r.rev = x.expect_rev
      on conflict do nothing`;
  }
  if (inserts.length > 0) {
    const added = await tx`
      insert into vault_records (form_id, record_id, schema_version, saved_at, created_at,
        submission_id, applied_version, "values", value_bytes, files)
      select form_id, record_id, schema_version, saved_at, created_at, submission_id,
        applied_version, "values", value_bytes, files
      from json_to_recordset(${recordset(inserts)}::text::json) as x(form_id text,
        record_id text, schema_version integer, saved_at text, created_at text,
        submission_id text, applied_version integer, "values" json, value_bytes integer,
        files jsonb)
      order by form_id, record_id
      on conflict do nothing
      returning record_id`;
    if (added.length !== inserts.length) throw new PgCheckFailedError("A record appeared");
  }
  if (updates.length > 0) {
    const changed = await tx`
      update vault_records r set schema_version = x.schema_version, saved_at = x.saved_at,
        created_at = x.created_at, submission_id = x.submission_id,
        applied_version = x.applied_version, "values" = x."values",
        value_bytes = x.value_bytes, files = x.files, deleted_at = null,
        rev = nextval('vault_record_revs')
      from json_to_recordset(${recordset(updates)}::text::json) as x(form_id text,
        record_id text, schema_version integer, saved_at text, created_at text,
        submission_id text, applied_version integer, "values" json, value_bytes integer,
        files jsonb, expect_rev bigint)
      where r.form_id = x.form_id and r.record_id = x.record_id
        and (x.expect_rev is null or r.rev = x.expect_rev)
      returning r.record_id`;
    if (changed.length !== updates.length) throw new PgCheckFailedError("A record changed");
  }
  await insertReleases(
    tx,
    plans.map((p) => ({ formId: p.write.formId, recordId: p.write.recordId, hashes: p.dropped })),
  );
  await insertRecordEvents(tx, plans.map((p) => p.event));
}

/**
 * Deletes the live record `head` (locked by the caller; `values` its values) in `tx`: its
 * saved versions go, its files are released, a submission's record stays as a tombstone, and
 * its `delete` event is written. Returns the event.
 */
export async function deleteRecord(
  tx: Tx,
  head: HeadRow,
  values: Record<string, unknown>,
): Promise<RecordEvent> {
  const { form_id: formId, record_id: recordId } = head;
  await tx`delete from vault_record_versions
    where form_id = ${formId} and record_id = ${recordId}`;
  await insertReleases(tx, [{ formId, recordId, hashes: head.files }]);
  if (head.submission_id) {
    await tx`update vault_records set "values" = null, value_bytes = 0, files = '[]',
        deleted_at = ${new Date().toISOString()}, rev = nextval('vault_record_revs')
      where form_id = ${formId} and record_id = ${recordId}`;
  } else {
    await tx`delete from vault_records where form_id = ${formId} and record_id = ${recordId}`;
  }
  const event: RecordEvent = {
    eventId: newEventId(),
    reason: "delete",
    recordId,
    formId,
    schemaVersion: head.schema_version,
    savedAt: savedAtOf(new Date()),
    values,
  };
  await insertRecordEvents(tx, [event]);
  return event;
}
