/**
 * The writes of webhook deliveries in PostgreSQL, group-committed (`Batcher`): the writes
 * queued meanwhile go in ONE multi-row statement. Its rows (`json_to_recordset`) are inserted
 * (creations, `on conflict do nothing`) or applied by conditional update (steps, `where
 * revision = $read`); the writes that took, and only they, then write their attempt rows,
 * schedule rows and failure flags in data-modifying CTEs of the same statement. A write whose
 * check fails fails alone; a batch that deadlocks with another process's is rolled back whole
 * and run again.
 *
 * @module
 */
import {
  type DeliveryChange,
  MAX_LOGGED_ATTEMPTS,
  type StoredDelivery,
} from "../ports/webhooks.ts";
import type { WritePart } from "../ports/write_part.ts";
import { Batcher } from "./batcher.ts";
import type { Sql, Tx } from "./db.ts";
import { runPgParts } from "./write_part.ts";

/** The channel that wakes the vault workers for an attempt due now (payload: epoch ms). */
export const DUE_CHANNEL = "sealpost_webhook_due";

/** A delivery write: a creation (with its body and a part of another port) or a step. */
export type DeliveryWrite =
  | { kind: "create"; change: DeliveryChange; body: Uint8Array | null; also?: WritePart }
  | { kind: "update"; before: StoredDelivery; change: DeliveryChange };

/** Runs of a batch after a deadlock or serialisation failure (the whole batch rolled back). */
const BATCH_TRIES = 4;

/**
 * Group-commits delivery writes; each resolves true when written, false when its check failed
 * (the id taken, or not the revision read).
 *
 * @example
 * ```ts
 * const writes = new DeliveryWriter(sql, 1_000, 128);
 * const ok = await writes.submit({ kind: "update", before, change });
 * ```
 */
export class DeliveryWriter {
  #batcher: Batcher<DeliveryWrite, boolean>;

  /**
   * `wakeWithinMs`: a schedule due sooner than this wakes the workers (NOTIFY); `maxBatch`:
   * writes per transaction at most.
   */
  constructor(private sql: Sql, private wakeWithinMs: number, maxBatch = 128) {
    this.#batcher = new Batcher((items) => this.#flush(items), {
      maxItems: maxBatch,
      inFlight: 2,
    });
  }

  /** Queues `write`; resolves once its batch is committed. */
  submit(write: DeliveryWrite): Promise<boolean> {
    return this.#batcher.submit(write);
  }

  /** Resolves once every write queued so far is committed. */
  idle(): Promise<void> {
    return this.#batcher.idle();
  }

  async #flush(items: DeliveryWrite[]): Promise<boolean[]> {
    for (let tries = 1;; tries++) {
      try {
        return await this.sql.begin(async (tx) => {
          const done = await writeBatch(tx, items);
          const soon = items.map((i) => i.change.schedule?.dueAt ?? Infinity)
            .reduce((a, b) => Math.min(a, b), Infinity);
          if (soon < Date.now() + this.wakeWithinMs) {
            await tx`select pg_notify(${DUE_CHANNEL}, ${String(soon)})`;
          }
          return done;
        });
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (tries >= BATCH_TRIES || (code !== "40P01" && code !== "40001")) throw err;
      }
    }
  }
}

/** A write as one row of the batch statement's input. */
interface InputRow {
  i: number;
  kind: DeliveryWrite["kind"];
  id: string;
  webhook_id: string;
  event_id: string;
  status: string;
  rev: number | null;
  /** The failure listing: true, false, or null to leave it. */
  failed: boolean | null;
  /** Whether the change sets `due_at` (to `due_at`, null included). */
  set_due: boolean;
  due_at: number | null;
  delivery: unknown;
  /** The body (creations), base64, or null when none is kept. */
  body: string | null;
  attempt_n: number | null;
  attempt: unknown;
  /** The schedule rows of the delivery go (any schedule given, null included). */
  unschedule: boolean;
  /** A new schedule row with the state's token, due at `due_at`. */
  schedule: boolean;
  token: string;
  flag: unknown;
  clear_flag: boolean;
}

function inputRow(write: DeliveryWrite, i: number): InputRow {
  const { state, attempt, schedule, failure } = write.change;
  const create = write.kind === "create";
  return {
    i,
    kind: write.kind,
    id: state.id,
    webhook_id: state.webhookId,
    event_id: state.eventId,
    status: state.status,
    rev: create ? null : Number(write.before.revision),
    failed: failure === undefined ? (create ? false : null) : failure !== "clear",
    set_due: schedule !== undefined || create,
    due_at: schedule?.dueAt ?? null,
    delivery: state,
    body: create && write.body !== null ? write.body.toBase64() : null,
    attempt_n: attempt?.n ?? null,
    attempt: attempt ?? null,
    unschedule: schedule !== undefined,
    schedule: schedule != null,
    token: state.token,
    flag: failure !== undefined && failure !== "clear" ? failure.flag : null,
    clear_flag: failure === "clear",
  };
}

/**
 * Runs `writes` in `tx` as one statement; answers, for each, whether its insert or
 * conditional update took. A creation whose id came earlier in the batch fails at once (as it
 * would one statement later); of the failure flags the writes that took set or clear on one
 * configuration, the last write's applies.
 *
 * @example
 * ```ts
 * const done = await sql.begin((tx) => writeBatch(tx, [{ kind: "create", change, body: null }]));
 * ```
 */
export async function writeBatch(tx: Tx, writes: DeliveryWrite[]): Promise<boolean[]> {
  const seen = new Set<string>();
  const rows: InputRow[] = [];
  writes.forEach((write, i) => {
    const id = write.change.state.id;
    if (write.kind === "create" && seen.has(id)) return;
    if (write.kind === "create") seen.add(id);
    rows.push(inputRow(write, i));
  });
  const won = await tx<{ i: number }[]>`
    with x as (
      select * from json_to_recordset(${JSON.stringify(rows)}::text::json) as x(
        i integer, kind text, id text, webhook_id text, event_id text, status text, rev bigint,
        failed boolean, set_due boolean, due_at bigint, delivery json, body text,
        attempt_n integer, attempt json, unschedule boolean, schedule boolean, token text,
        flag json, clear_flag boolean)
    ), created as (
      insert into webhook_deliveries
        (id, webhook_id, event_id, status, failed, due_at, delivery, body)
      select id, webhook_id, event_id, status, failed, due_at, delivery, decode(body, 'base64')
      from x where kind = 'create' order by i
      on conflict do nothing returning id
    ), updated as (
      update webhook_deliveries d set status = x.status, delivery = x.delivery,
        revision = d.revision + 1, failed = coalesce(x.failed, d.failed),
        due_at = case when x.set_due then x.due_at else d.due_at end
      from x where x.kind = 'update' and d.id = x.id and d.revision = x.rev
      returning x.i
    ), won as (
      select x.* from x join created c on x.kind = 'create' and c.id = x.id
      union all
      select x.* from x join updated u on u.i = x.i
    ), attempts as (
      insert into webhook_attempts (delivery_id, n, attempt)
      select id, attempt_n, attempt from won where attempt_n is not null
      on conflict do nothing
    ), trimmed as (
      delete from webhook_attempts a using won w
      where w.attempt_n is not null and a.delivery_id = w.id
        and a.n <= w.attempt_n - ${MAX_LOGGED_ATTEMPTS}
    ), unscheduled as (
      delete from webhook_schedule s using won w where w.unschedule and s.delivery_id = w.id
    ), scheduled as (
      insert into webhook_schedule (delivery_id, webhook_id, token, run_at)
      select id, webhook_id, token, due_at from won where schedule
    ), flag_ops as (
      select distinct on (webhook_id) webhook_id, flag, clear_flag from won
      where flag is not null or clear_flag order by webhook_id, i desc
    ), flagged as (
      insert into webhook_flags (webhook_id, flag)
      select webhook_id, flag from flag_ops where flag is not null
      on conflict (webhook_id) do update set flag = excluded.flag
    ), cleared as (
      delete from webhook_flags f using flag_ops o
      where o.clear_flag and f.webhook_id = o.webhook_id
    )
    select i from won`;
  const took = new Set(won.map((r) => r.i));
  const done = writes.map((_, i) => took.has(i));
  for (const [i, write] of writes.entries()) {
    if (done[i] && write.kind === "create" && write.also) await runPgParts(tx, [write.also]);
  }
  return done;
}
