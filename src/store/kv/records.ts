/**
 * The records port on Deno KV. Layout: a head row per record (`vaultKeys.record`, values
 * inline up to 16 KiB, else in parts under `vaultKeys.recordValues`), saved versions under
 * `vaultKeys.recordVersions`, the records-by-time index and counts, release rows, and the
 * record event outbox row (record_events.ts); see record_writes.ts.
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
  InvalidCursorError,
  type RecordHead,
  type RecordsPort,
  type RecordVersion,
  type RecordWrite,
  type ScannedRecord,
  type SubmissionOutcome,
  type TimePageOptions,
  type VaultRecord,
} from "../ports/records.ts";
import { GroupCommitter } from "./group_commit.ts";
import { vaultKeys } from "./keys.ts";
import {
  addFileRelease,
  addRecordDelete,
  addRecordWrite,
  headOf,
  recordOf,
  valuesOf,
  type VaultRecordRow,
  versionOf,
} from "./record_writes.ts";
import { KvWrite } from "./write.ts";
import { kvPart } from "./write_part.ts";
import type { WritePart } from "../ports/write_part.ts";
import { applySubmission } from "./record_submissions.ts";

/** Keys per `kv.getMany` (Deno KV's limit). */
const GET_MANY = 10;

/** Tries of an optimistic write before "conflict". */
const TRIES = 10;

/** A Deno KV cursor (base64url with padding) as the port's cursor: without the padding. */
function portCursor(cursor: string): string {
  return cursor.replace(/=+$/, "");
}

/** A port cursor as Deno KV takes it (padding restored); one of other characters is invalid. */
function kvCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw new InvalidCursorError("Not a cursor of this list");
  }
  return cursor + "=".repeat((4 - cursor.length % 4) % 4);
}

/** Every entry of a list; a cursor Deno KV refuses is an {@link InvalidCursorError}. */
async function readList<T>(iter: Deno.KvListIterator<T>): Promise<Deno.KvEntry<T>[]> {
  try {
    return await Array.fromAsync(iter);
  } catch (err) {
    if (err instanceof TypeError && /cursor/i.test(err.message)) {
      throw new InvalidCursorError("Not a cursor of this list");
    }
    throw err;
  }
}

/**
 * The Deno KV records store.
 *
 * @example
 * ```ts
 * const records = new KvRecords(kv);
 * const record = await records.get("contact", recordId);
 * ```
 */
export class KvRecords implements RecordsPort {
  /** Ingest's writes: two commits in flight (nothing pages records by commit sequence). */
  #committer: GroupCommitter;

  /** `announcer`: the store's, shared with its record events outbox. */
  constructor(private kv: Deno.Kv, private announcer = new RecordEventAnnouncer()) {
    this.#committer = new GroupCommitter(kv, undefined, 2);
  }

  onEvents(listener: (events: RecordEvent[]) => void): () => void {
    return this.announcer.listen((stored) => listener(stored.map((s) => s.event)));
  }

  async get(formId: string, recordId: string): Promise<VaultRecord | null> {
    const row = (await this.kv.get<VaultRecordRow>(vaultKeys.record(formId, recordId))).value;
    return row && !row.deletedAt ? await recordOf(this.kv, row) : null;
  }

  async getMany(formId: string, ids: string[]): Promise<VaultRecord[]> {
    const heads: VaultRecordRow[] = [];
    for (let i = 0; i < ids.length; i += GET_MANY) {
      const keys = ids.slice(i, i + GET_MANY).map((id) => vaultKeys.record(formId, id));
      for (const entry of await this.kv.getMany<VaultRecordRow[]>(keys)) {
        if (entry.value && !entry.value.deletedAt) heads.push(entry.value);
      }
    }
    return await Promise.all(heads.map((head) => recordOf(this.kv, head)));
  }

  async list(formId: string, cursor: string | undefined, limit: number) {
    const iter = this.kv.list<VaultRecordRow>({ prefix: vaultKeys.records(formId) }, {
      limit,
      cursor: kvCursor(cursor),
    });
    const rows = (await readList(iter)).map((entry) => entry.value);
    const items = await Promise.all(
      rows.filter((row) => !row.deletedAt).map((row) => recordOf(this.kv, row)),
    );
    return { items, nextCursor: rows.length === limit ? portCursor(iter.cursor) : null };
  }

  async *scan(formId: string): AsyncIterable<ScannedRecord> {
    const prefix = vaultKeys.records(formId);
    for await (const entry of this.kv.list<VaultRecordRow>({ prefix }, { batchSize: 500 })) {
      const row = entry.value;
      if (row.deletedAt) continue;
      yield { head: headOf(row), values: () => valuesOf(this.kv, row) };
    }
  }

  async versions(formId: string, recordId: string, limit: number) {
    // The versions a record's changes replaced, then the head: its newest version.
    const prefix = vaultKeys.recordVersions(formId, recordId);
    const [head, earlier] = await Promise.all([
      this.kv.get<VaultRecordRow>(vaultKeys.record(formId, recordId)),
      Array.fromAsync(
        this.kv.list<RecordVersion>({ prefix }, { limit }),
        (entry) => entry.value,
      ),
    ]);
    const row = head.value;
    if (!row || row.deletedAt || earlier.length >= limit) return earlier;
    return [...earlier, versionOf(row, await valuesOf(this.kv, row))];
  }

  async count(formId: string): Promise<number> {
    const value = (await this.kv.get<Deno.KvU64>(vaultKeys.recordCount(formId))).value;
    return value ? Number(value.value) : 0;
  }

  async perDay(formId: string, from: string, to: string): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const iter = this.kv.list<Deno.KvU64>({
      start: vaultKeys.recordDay(formId, from),
      end: vaultKeys.recordDay(formId, `${to}\uffff`),
    });
    for await (const entry of iter) {
      // A day whose records were all deleted keeps a zero count.
      if (entry.value.value > 0n) out.set(String(entry.key.at(-1)), Number(entry.value.value));
    }
    return out;
  }

  async idsByTime(formId: string, options: TimePageOptions) {
    const prefix = vaultKeys.recordsByTime(formId);
    const iter = this.kv.list({
      start: [...prefix, options.from],
      end: [...prefix, options.to ? `${options.to}\uffff` : "\uffff"],
    }, {
      reverse: !options.oldest,
      limit: options.limit,
      cursor: kvCursor(options.cursor),
    });
    const ids = (await readList(iter)).map((entry) => String(entry.key.at(-1)));
    return { ids, nextCursor: ids.length === options.limit ? portCursor(iter.cursor) : null };
  }

  async write(
    formId: string,
    recordId: string,
    change: (current: RecordHead | null) => RecordWrite | Promise<RecordWrite>,
  ): Promise<"saved" | "conflict"> {
    const done = await this.#change(formId, recordId, async (w, current) => {
      const write = await change(current && headOf(current));
      const bytes = checkRecordSize(write.values);
      const previous = current && { row: current, values: await valuesOf(this.kv, current) };
      return addRecordWrite(w, previous, write, bytes);
    });
    return done ? "saved" : "conflict";
  }

  async delete(formId: string, recordId: string): Promise<"deleted" | "missing" | "conflict"> {
    let missing = false;
    const done = await this.#change(formId, recordId, async (w, current) => {
      if (!current) {
        missing = true;
        return null;
      }
      const values = await valuesOf(this.kv, current);
      const prefix = vaultKeys.recordVersions(formId, recordId);
      const versions = await Array.fromAsync(this.kv.list({ prefix }), (entry) => entry.key);
      return addRecordDelete(w, current, values, versions);
    });
    return missing ? "missing" : done ? "deleted" : "conflict";
  }

  async deleteCreatedBefore(formId: string, cutoff: string): Promise<number> {
    let deleted = 0;
    const prefix = vaultKeys.recordsByTime(formId);
    for await (const entry of this.kv.list({ start: prefix, end: [...prefix, cutoff] })) {
      const outcome = await this.delete(formId, String(entry.key.at(-1)));
      if (outcome === "conflict") {
        throw new Error(`Record ${String(entry.key.at(-1))} kept changing`);
      }
      if (outcome === "deleted") deleted++;
      // Deleted meanwhile (the owner was quicker): an index entry left is dropped.
      else await new KvWrite().check(entry).delete(entry.key).commit(this.kv);
    }
    return deleted;
  }

  applySubmission(write: RecordWrite, parts: WritePart[]): Promise<SubmissionOutcome> {
    return applySubmission(this.kv, this.#committer, this.announcer, write, parts);
  }

  async releaseUnkept(formId: string, recordId: string, claimed: string[]): Promise<WritePart> {
    const head = await this.kv.get<VaultRecordRow>(vaultKeys.record(formId, recordId));
    const kept = head.value && !head.value.deletedAt ? head.value.files ?? [] : [];
    const released = claimed.filter((hash) => !kept.includes(hash));
    return kvPart((w) => {
      w.check(head);
      addFileRelease(w, formId, recordId, released);
    });
  }

  /**
   * Writes with an optimistic check on the record head, retried on a concurrent change.
   * `build` gets the live head (null for none or a tombstone), adds the change to `w` and
   * returns its event (null: nothing to write). False when it kept changing.
   */
  async #change(
    formId: string,
    recordId: string,
    build: (w: KvWrite, current: VaultRecordRow | null) => Promise<StoredRecordEvent | null>,
  ): Promise<boolean> {
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const entry = await this.kv.get<VaultRecordRow>(vaultKeys.record(formId, recordId));
      const w = new KvWrite().check(entry);
      const event = await build(w, entry.value?.deletedAt ? null : entry.value);
      if (!event) return true;
      if (await w.commit(this.kv)) {
        this.announcer.announce([event]);
        return true;
      }
    }
    return false;
  }
}
