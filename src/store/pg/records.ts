/**
 * The records port on PostgreSQL: head rows in `vault_records` (values inline as `json`;
 * a submission's deleted record stays as a tombstone), saved versions, file releases and the
 * record events outbox (record_rows.ts). Counts, days and the by-time index are queries over
 * the live heads. Owner edits are optimistic (a head's `rev`); ingest's writes are
 * group-committed (record_submissions.ts). Committed events are announced in this process
 * (`onEvents`), and to other processes by NOTIFY.
 *
 * @module
 */
import {
  type RecordEvent,
  RecordEventAnnouncer,
  type StoredRecordEvent,
} from "../ports/record_events.ts";
import {
  checkRecordSize,
  type RecordHead,
  type RecordsPort,
  type RecordVersion,
  type RecordWrite,
  type ScannedRecord,
  type SubmissionOutcome,
  type TimePageOptions,
  type VaultRecord,
} from "../ports/records.ts";
import type { WritePart } from "../ports/write_part.ts";
import { PgCheckFailedError } from "./check_failed.ts";
import type { Sql } from "./db.ts";
import { decodeCursor, encodeCursor } from "./record_cursors.ts";
import {
  deleteRecord,
  headColumns,
  headOf,
  type HeadRow,
  insertReleases,
  keptValues,
  planWrite,
  reasonOf,
  writePlans,
} from "./record_rows.ts";
import { SubmissionWriter } from "./record_submissions.ts";
import { transaction } from "./transaction.ts";
import { pgPart } from "./write_part.ts";

/** Tries of an optimistic write before "conflict". */
const TRIES = 10;

/** Heads read per page by {@link PgRecords.scan} and {@link PgRecords.deleteCreatedBefore}. */
const PAGE = 500;

type Values = Record<string, unknown>;

/** A live head row with its values. */
type FullRow = HeadRow & { values: Values };

function recordOf(row: FullRow): VaultRecord {
  return {
    _recordId: row.record_id,
    _formId: row.form_id,
    _savedAt: row.saved_at,
    _createdAt: row.created_at,
    _schemaVersion: row.schema_version,
    _submissionId: row.submission_id,
    values: row.values,
  };
}

/**
 * The PostgreSQL records store.
 *
 * @example
 * ```ts
 * const records = new PgRecords(sql);
 * const record = await records.get("contact", recordId);
 * ```
 */
export class PgRecords implements RecordsPort {
  #submissions: SubmissionWriter;

  /** This process's announcements (other processes hear `NOTIFY sealpost_record_events`). */
  #announcer = new RecordEventAnnouncer();

  constructor(private sql: Sql) {
    this.#submissions = new SubmissionWriter(sql, (events) => this.#announce(events));
  }

  async get(formId: string, recordId: string): Promise<VaultRecord | null> {
    const rows = await this.sql<FullRow[]>`
      select ${headColumns(this.sql)}, "values" from vault_records
      where form_id = ${formId} and record_id = ${recordId} and deleted_at is null`;
    return rows[0] ? recordOf(rows[0]) : null;
  }

  async getMany(formId: string, ids: string[]): Promise<VaultRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql<FullRow[]>`
      select ${headColumns(this.sql)}, "values" from vault_records
      where form_id = ${formId} and record_id = any(${ids}::text[]) and deleted_at is null`;
    const byId = new Map(rows.map((row) => [row.record_id, row]));
    return ids.flatMap((id) => byId.has(id) ? [recordOf(byId.get(id)!)] : []);
  }

  async list(formId: string, cursor: string | undefined, limit: number) {
    const list = ["records", formId];
    const after = cursor === undefined ? null : (await decodeCursor(list, cursor))[0];
    const rows = await this.sql<FullRow[]>`
      select ${headColumns(this.sql)}, "values" from vault_records
      where form_id = ${formId} and deleted_at is null
        and ${after === null ? this.sql`true` : this.sql`record_id > ${after}`}
      order by record_id limit ${limit}`;
    const last = rows.at(-1);
    const nextCursor = rows.length === limit && last
      ? await encodeCursor(list, [last.record_id])
      : null;
    return { items: rows.map(recordOf), nextCursor };
  }

  async *scan(formId: string): AsyncIterable<ScannedRecord> {
    let after = "";
    for (;;) {
      const rows = await this.sql<HeadRow[]>`
        select ${headColumns(this.sql)} from vault_records
        where form_id = ${formId} and deleted_at is null and record_id > ${after}
        order by record_id limit ${PAGE}`;
      for (const row of rows) {
        yield { head: headOf(row), values: () => this.#values(formId, row.record_id) };
      }
      if (rows.length < PAGE) return;
      after = rows.at(-1)!.record_id;
    }
  }

  async versions(formId: string, recordId: string, limit: number) {
    // The versions changes replaced, then the head: the record's newest version.
    const [earlier, heads] = await Promise.all([
      this.sql<RecordVersion[]>`
        select saved_at as "savedAt", reason, schema_version as "schemaVersion",
          submission_version as "submissionVersion", "values"
        from vault_record_versions where form_id = ${formId} and record_id = ${recordId}
        order by saved_at limit ${limit}`,
      this.sql<FullRow[]>`
        select ${headColumns(this.sql)}, "values" from vault_records
        where form_id = ${formId} and record_id = ${recordId} and deleted_at is null`,
    ]);
    const versions = earlier.map((v) => ({ ...v }));
    const head = heads[0];
    if (!head || versions.length >= limit) return versions;
    return [...versions, {
      savedAt: head.saved_at,
      reason: reasonOf(head),
      schemaVersion: head.schema_version,
      submissionVersion: head.applied_version,
      values: keptValues(head.value_bytes, head.values),
    }];
  }

  async count(formId: string): Promise<number> {
    const [{ n }] = await this.sql<{ n: number }[]>`
      select count(*)::int as n from vault_records
      where form_id = ${formId} and deleted_at is null`;
    return n;
  }

  async perDay(formId: string, from: string, to: string): Promise<Map<string, number>> {
    const rows = await this.sql<{ day: string; n: number }[]>`
      select left(created_at, 10) as day, count(*)::int as n from vault_records
      where form_id = ${formId} and deleted_at is null
        and created_at >= ${from} and left(created_at, 10) <= ${to}
      group by 1 order by 1`;
    return new Map(rows.map((r) => [r.day, r.n]));
  }

  async idsByTime(formId: string, options: TimePageOptions) {
    const list = ["by_time", formId, options.oldest ? "oldest" : "newest"];
    const at = options.cursor === undefined ? null : await decodeCursor(list, options.cursor);
    const sql = this.sql;
    const position = at === null
      ? sql`true`
      : options.oldest
      ? sql`(created_at, record_id) > (${at[0]}, ${at[1]})`
      : sql`(created_at, record_id) < (${at[0]}, ${at[1]})`;
    const rows = await sql<{ record_id: string; created_at: string }[]>`
      select record_id, created_at from vault_records
      where form_id = ${formId} and deleted_at is null
        and ${options.from ? sql`created_at >= ${options.from}` : sql`true`}
        and ${options.to ? sql`left(created_at, 10) <= ${options.to}` : sql`true`}
        and ${position}
      order by ${options.oldest ? sql`created_at, record_id` : sql`created_at desc, record_id desc`}
      limit ${options.limit}`;
    const last = rows.at(-1);
    const nextCursor = rows.length === options.limit && last
      ? await encodeCursor(list, [last.created_at, last.record_id])
      : null;
    return { ids: rows.map((r) => r.record_id), nextCursor };
  }

  async write(
    formId: string,
    recordId: string,
    change: (current: RecordHead | null) => RecordWrite | Promise<RecordWrite>,
  ): Promise<"saved" | "conflict"> {
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const stored = await this.#head(formId, recordId);
      const live = stored && !stored.deleted_at ? stored : null;
      const write = await change(live && headOf(live));
      const plan = planWrite(stored, write, checkRecordSize(write.values), stored?.rev ?? null);
      try {
        await transaction(this.sql, (tx) => writePlans(tx, [plan]));
      } catch (err) {
        if (err instanceof PgCheckFailedError) continue;
        throw err;
      }
      this.#announce([{ event: plan.event, parts: 1 }]);
      return "saved";
    }
    return "conflict";
  }

  async delete(formId: string, recordId: string): Promise<"deleted" | "missing" | "conflict"> {
    const event = await transaction(this.sql, async (tx) => {
      const [head] = await tx<FullRow[]>`
        select ${headColumns(tx)}, "values" from vault_records
        where form_id = ${formId} and record_id = ${recordId} for update`;
      if (!head || head.deleted_at) return null;
      return await deleteRecord(tx, head, head.values);
    });
    if (!event) return "missing";
    this.#announce([{ event, parts: 1 }]);
    return "deleted";
  }

  async deleteCreatedBefore(formId: string, cutoff: string): Promise<number> {
    let deleted = 0;
    for (;;) {
      const rows = await this.sql<{ record_id: string }[]>`
        select record_id from vault_records
        where form_id = ${formId} and deleted_at is null and created_at < ${cutoff}
        order by created_at, record_id limit ${PAGE}`;
      for (const { record_id } of rows) {
        // "missing": deleted meanwhile (the owner was quicker).
        if (await this.delete(formId, record_id) === "deleted") deleted++;
      }
      if (rows.length < PAGE) return deleted;
    }
  }

  applySubmission(write: RecordWrite, parts: WritePart[]): Promise<SubmissionOutcome> {
    return this.#submissions.apply(write, parts);
  }

  async releaseUnkept(formId: string, recordId: string, claimed: string[]): Promise<WritePart> {
    const stored = await this.#head(formId, recordId);
    const kept = stored && !stored.deleted_at ? stored.files : [];
    const hashes = claimed.filter((hash) => !kept.includes(hash));
    const seen = stored?.rev ?? null;
    return pgPart(async (tx) => {
      const [now] = await tx<{ rev: number }[]>`select rev from vault_records
        where form_id = ${formId} and record_id = ${recordId} for update`;
      if ((now?.rev ?? null) !== seen) {
        throw new PgCheckFailedError(`Record ${recordId} changed since its files were read`);
      }
      await insertReleases(tx, [{ formId, recordId, hashes }]);
    });
  }

  /** The stored head (live or a tombstone), or null. */
  async #head(formId: string, recordId: string): Promise<HeadRow | null> {
    const rows = await this.sql<HeadRow[]>`
      select ${headColumns(this.sql)} from vault_records
      where form_id = ${formId} and record_id = ${recordId}`;
    return rows[0] ?? null;
  }

  async #values(formId: string, recordId: string): Promise<Values> {
    const rows = await this.sql<{ values: Values | null }[]>`
      select "values" from vault_records where form_id = ${formId} and record_id = ${recordId}`;
    return rows[0]?.values ?? {};
  }

  onEvents(listener: (events: RecordEvent[]) => void): () => void {
    return this.#announcer.listen((stored) => listener(stored.map((s) => s.event)));
  }

  #announce(events: StoredRecordEvent[]) {
    this.#announcer.announce(events);
  }
}
