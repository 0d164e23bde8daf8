/**
 * The writes of webhook deliveries in PostgreSQL: each creation or step is ONE statement (the
 * delivery row, its attempt row, its schedule rows and its failure flag in data-modifying
 * CTEs that act only if the delivery's own insert or conditional update did), and the writes
 * queued meanwhile are group-committed (`Batcher`): one transaction per batch, its
 * statements pipelined. A write whose check fails fails alone; a batch that deadlocks with
 * another process's is rolled back whole and run again.
 *
 * @module
 */
import { MAX_LOGGED_ATTEMPTS } from "../ports/webhooks.ts";
import type { DeliveryChange, StoredDelivery } from "../ports/webhooks.ts";
import type { WritePart } from "../write_part.ts";
import { Batcher } from "./batcher.ts";
import type { Sql, Tx } from "./db.ts";
import { json } from "./json.ts";
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
          const done = await Promise.all(items.map((item) => writeOne(tx, item)));
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

/** Runs one write in `tx`: true when its insert or conditional update took. */
async function writeOne(tx: Tx, write: DeliveryWrite): Promise<boolean> {
  const { state, attempt, schedule, failure } = write.change;
  const id = state.id;
  const webhookId = state.webhookId;
  const failed = failure === undefined ? undefined : failure !== "clear";
  const dueAt = schedule === undefined ? undefined : schedule?.dueAt ?? null;
  const head = write.kind === "create"
    ? tx`insert into webhook_deliveries
          (id, webhook_id, event_id, status, failed, due_at, delivery, body)
        values (${id}, ${webhookId}, ${state.eventId}, ${state.status}, ${failed ?? false},
          ${dueAt ?? null}, ${json(state)}::json, ${write.body})
        on conflict do nothing returning id`
    : tx`update webhook_deliveries set status = ${state.status},
          delivery = ${json(state)}::json, revision = revision + 1
          ${failed === undefined ? tx`` : tx`, failed = ${failed}`}
          ${dueAt === undefined ? tx`` : tx`, due_at = ${dueAt}`}
        where id = ${id} and revision = ${Number(write.before.revision)} returning id`;
  const attempted = attempt
    ? tx`, attempt as (
        insert into webhook_attempts (delivery_id, n, attempt)
        select id, ${attempt.n}, ${json(attempt)}::json from written
        on conflict do nothing
      ), trimmed as (
        delete from webhook_attempts where delivery_id = ${id}
          and n <= ${attempt.n - MAX_LOGGED_ATTEMPTS} and exists (select 1 from written)
      )`
    : tx``;
  const unscheduled = schedule !== undefined
    ? tx`, unscheduled as (
        delete from webhook_schedule
        where delivery_id = ${id} and exists (select 1 from written)
      )`
    : tx``;
  const scheduled = schedule
    ? tx`, scheduled as (
        insert into webhook_schedule (delivery_id, webhook_id, token, run_at)
        select id, ${webhookId}, ${state.token}, ${schedule.dueAt} from written
      )`
    : tx``;
  const flagged = failure === "clear"
    ? tx`, flag as (
        delete from webhook_flags where webhook_id = ${webhookId} and exists (select 1 from written)
      )`
    : failure
    ? tx`, flag as (
        insert into webhook_flags (webhook_id, flag)
        select ${webhookId}, ${json(failure.flag)}::json from written
        on conflict (webhook_id) do update set flag = excluded.flag
      )`
    : tx``;
  const [{ n }] = await tx<{ n: number }[]>`
    with written as (${head}) ${attempted} ${unscheduled} ${scheduled} ${flagged}
    select count(*)::int as n from written`;
  if (n !== 1) return false;
  if (write.kind === "create" && write.also) await runPgParts(tx, [write.also]);
  return true;
}
