/**
 * Ingest's record writes on PostgreSQL, group-committed: envelope versions queued while a
 * batch is in flight go together in the next transaction (src/store/pg/batcher.ts), which
 * locks the heads they touch, decides each outcome, writes with multi-row statements and runs
 * the parts each caller added (its ack, the removal of a quarantine row). Two vault workers
 * saving one submission at once: the heads' row locks and the primary key order them, and
 * the one that finds the record written answers "duplicate".
 *
 * @module
 */
import type { StoredRecordEvent } from "../ports/record_events.ts";
import { checkRecordSize, type RecordWrite, type SubmissionOutcome } from "../ports/records.ts";
import type { WritePart } from "../ports/write_part.ts";
import { Batcher } from "./batcher.ts";
import { PgCheckFailedError } from "./check_failed.ts";
import type { Sql, Tx } from "./db.ts";
import {
  headAfter,
  headColumns,
  type HeadRow,
  planWrite,
  type RecordPlan,
  writePlans,
} from "./record_rows.ts";
import { isTransient } from "./transaction.ts";
import { runPgParts } from "./write_part.ts";

/** Writes per transaction at most (each up to `MAX_RECORD_BYTES` of values). */
const BATCH_ITEMS = 128;

/** Tries of a batch that met another writer (a record appeared, a deadlock) before failing. */
const TRIES = 10;

interface Item {
  write: RecordWrite;
  bytes: number;
  parts: WritePart[];
}

/** One item's answer: its outcome, or the error its parts threw. */
type Settled = { outcome: SubmissionOutcome } | { error: unknown };

/** The parts of item `index` failed: that item fails, the rest of its batch runs again. */
class ItemFailed extends Error {
  constructor(readonly index: number, override readonly cause: unknown) {
    super(`A write part failed: ${cause}`);
  }
}

function keyOf(write: RecordWrite): string {
  return JSON.stringify([write.formId, write.recordId]);
}

/**
 * The group committer of `RecordsPort.applySubmission` on PostgreSQL; `announce` hears the
 * events of each committed batch.
 *
 * @example
 * ```ts
 * const writer = new SubmissionWriter(sql, (events) => announceRecordEvents(sql, events));
 * await writer.apply(write, [ack]); // "record"
 * ```
 */
export class SubmissionWriter {
  #batcher: Batcher<Item, Settled>;

  constructor(private sql: Sql, private announce: (events: StoredRecordEvent[]) => void) {
    this.#batcher = new Batcher((items) => this.#flush(items), {
      maxItems: BATCH_ITEMS,
      inFlight: 2,
    });
  }

  /** Saves envelope version `write.appliedVersion` of submission `write.recordId`. */
  async apply(write: RecordWrite, parts: WritePart[]): Promise<SubmissionOutcome> {
    const settled = await this.#batcher.submit({
      write,
      bytes: checkRecordSize(write.values),
      parts,
    });
    if ("error" in settled) throw settled.error;
    return settled.outcome;
  }

  async #flush(items: Item[]): Promise<Settled[]> {
    const settled: (Settled | null)[] = items.map(() => null);
    let pending = items.map((_, index) => index);
    for (let attempt = 1; pending.length > 0; attempt++) {
      try {
        const { outcomes, events } = await this.sql.begin((tx) =>
          flushIn(tx, pending.map((index) => items[index]))
        );
        this.announce(events);
        pending.forEach((index, i) => settled[index] = { outcome: outcomes[i] });
        pending = [];
      } catch (err) {
        if (err instanceof ItemFailed) {
          const failed = pending[err.index];
          settled[failed] = { error: err.cause };
          pending = pending.filter((index) => index !== failed);
        } else if (attempt >= TRIES || !(err instanceof PgCheckFailedError || isTransient(err))) {
          throw err;
        }
      }
    }
    return settled as Settled[];
  }
}

/**
 * One batch in `tx`: locks the heads, decides the outcomes in order (a later write of the same
 * record sees the earlier one), writes in rounds of one change per record, runs the parts.
 */
async function flushIn(
  tx: Tx,
  items: Item[],
): Promise<{ outcomes: SubmissionOutcome[]; events: StoredRecordEvent[] }> {
  const keys = JSON.stringify(
    [...new Map(items.map((item) => [keyOf(item.write), item.write])).values()]
      .map((w) => ({ form_id: w.formId, record_id: w.recordId })),
  );
  const heads = await tx<HeadRow[]>`
    select ${headColumns(tx)} from vault_records
    where (form_id, record_id) in (
      select x.form_id, x.record_id
      from json_to_recordset(${keys}::text::json) as x(form_id text, record_id text))
    order by form_id, record_id
    for update`;
  const state = new Map(
    heads.map((head) => [JSON.stringify([head.form_id, head.record_id]), head]),
  );
  const rounds: Map<string, RecordPlan>[] = [];
  const withParts: number[] = [];
  const outcomes = items.map((item, index): SubmissionOutcome => {
    const key = keyOf(item.write);
    const current = state.get(key) ?? null;
    const version = item.write.appliedVersion;
    const wanted = (current?.applied_version ?? 0) < version;
    if (wanted && !current && version > 1) return "missing";
    if (wanted && current?.deleted_at) return "deleted";
    withParts.push(index);
    if (!wanted) return "duplicate";
    const plan = planWrite(current, item.write, item.bytes, null);
    let round = rounds[lastRoundOf(rounds, key) + 1];
    if (!round) rounds.push(round = new Map());
    round.set(key, plan);
    state.set(key, headAfter(plan));
    return "record";
  });
  for (const round of rounds) await writePlans(tx, [...round.values()]);
  const results = await Promise.allSettled(
    withParts.map((index) => runPgParts(tx, items[index].parts)),
  );
  const failed = results.findIndex((r) =>
    r.status === "rejected" && (r.reason as { code?: string })?.code !== "25P02"
  );
  if (failed >= 0) {
    const reason = (results[failed] as PromiseRejectedResult).reason;
    if (isTransient(reason)) throw reason;
    throw new ItemFailed(withParts[failed], reason);
  }
  const events = rounds.flatMap((round) => [...round.values()].map((plan) => plan.event));
  return { outcomes, events: events.map((event) => ({ event, parts: 1 })) };
}

/** The index of the last round holding a change of `key` (-1: none). */
function lastRoundOf(rounds: Map<string, RecordPlan>[], key: string): number {
  for (let i = rounds.length - 1; i >= 0; i--) if (rounds[i].has(key)) return i;
  return -1;
}
