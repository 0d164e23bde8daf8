/**
 * Webhook deliveries, their attempts and their schedule in PostgreSQL (`webhook_deliveries`
 * with the body as `bytea`, `webhook_attempts`, `webhook_schedule`; the baseline migration), behind the
 * {@linkcode WebhookDeliveries} port.
 *
 * A delivery's revision is a counter its every write increments, checked by the conditional
 * update (`where revision = $read`), so writers in several processes never both win. Its
 * `due_at` is when its scheduled attempt is due (the recovery sweep's view); the attempts
 * themselves are rows of the schedule that any vault worker claims (`webhook_schedule.ts`).
 * Creations with the same id, or for the same event and configuration, write nothing twice.
 *
 * @module
 */
import {
  type DeliveryChange,
  type DeliveryPage,
  type DeliveryRevision,
  type DueDelivery,
  InvalidCursorError,
  type ScheduledAttempt,
  type StoredDelivery,
  type WebhookAttempt,
  type WebhookDeliveries,
  type WebhookDelivery,
} from "../ports/webhooks.ts";
import type { WritePart } from "../ports/write_part.ts";
import type { Sql } from "./db.ts";
import { DeliveryWriter } from "./webhook_delivery_writes.ts";
import { PgSchedule, type ScheduleOptions } from "./webhook_schedule.ts";

/** Overdue deliveries read per statement. */
const OVERDUE_PAGE = 200;

interface DeliveryRecord {
  delivery: WebhookDelivery;
  revision: number;
}

const stored = (r: DeliveryRecord): StoredDelivery => ({
  row: r.delivery,
  revision: String(r.revision) as DeliveryRevision,
});

/** The page cursor after delivery `id` of one list (the configuration, failed or not). */
interface Cursor {
  w: string;
  f: boolean;
  id: string;
}

const encodeCursor = (c: Cursor) => btoa(JSON.stringify(c)).replaceAll("=", "");

function decodeCursor(text: string, webhookId: string, failed: boolean): string {
  try {
    const c = JSON.parse(atob(text)) as Cursor;
    if (c.w === webhookId && c.f === failed && typeof c.id === "string") return c.id;
  } catch {
    // Not one of ours: refused below.
  }
  throw new InvalidCursorError();
}

/**
 * Deliveries in PostgreSQL; scheduled attempts come due on every process that calls `onDue`.
 *
 * @example
 * ```ts
 * const deliveries = new PgWebhookDeliveries(sql, { pollMs: 1000, claimLeaseMs: 30_000, maxInFlight: 64, retryMs: 2000 });
 * deliveries.onDue(async (attempt) => await attemptNow(attempt));
 * await deliveries.close();
 * ```
 */
export class PgWebhookDeliveries implements WebhookDeliveries {
  #writes: DeliveryWriter;
  #schedule: PgSchedule;

  /** `maxBatch`: delivery writes per group commit at most (default 128). */
  constructor(private sql: Sql, schedule: ScheduleOptions, maxBatch?: number) {
    this.#writes = new DeliveryWriter(sql, schedule.pollMs, maxBatch);
    this.#schedule = new PgSchedule(sql, schedule);
  }

  async delivery(deliveryId: string): Promise<StoredDelivery | null> {
    const [row] = await this.sql<DeliveryRecord[]>`
      select delivery, revision from webhook_deliveries where id = ${deliveryId}`;
    return row ? stored(row) : null;
  }

  async due(attempt: ScheduledAttempt): Promise<DueDelivery | null> {
    const [row] = await this.sql<(DeliveryRecord & { body: Uint8Array | null })[]>`
      select delivery, revision, body from webhook_deliveries
      where id = ${attempt.deliveryId} and webhook_id = ${attempt.webhookId}
        and status = 'pending' and delivery->>'token' = ${attempt.token}`;
    if (!row) return null;
    return { ...stored(row), body: bytes(row.body) };
  }

  async deliveries(
    webhookId: string,
    options: { failed?: boolean; cursor?: string; limit: number },
  ): Promise<DeliveryPage> {
    const failed = options.failed === true;
    const before = options.cursor === undefined
      ? null
      : decodeCursor(options.cursor, webhookId, failed);
    const rows = await this.sql<{ delivery: WebhookDelivery }[]>`
      select delivery from webhook_deliveries
      where webhook_id = ${webhookId}
        ${failed ? this.sql`and failed` : this.sql``}
        ${before === null ? this.sql`` : this.sql`and id < ${before}`}
      order by id desc limit ${options.limit + 1}`;
    const items = rows.slice(0, options.limit).map((r) => r.delivery);
    const more = rows.length > options.limit && items.length > 0;
    return {
      items,
      nextCursor: more ? encodeCursor({ w: webhookId, f: failed, id: items.at(-1)!.id }) : null,
    };
  }

  async failedIds(webhookId: string): Promise<string[]> {
    const rows = await this.sql<{ id: string }[]>`
      select id from webhook_deliveries where webhook_id = ${webhookId} and failed order by id`;
    return rows.map((r) => r.id);
  }

  async body(row: WebhookDelivery): Promise<Uint8Array> {
    const [found] = await this.sql<{ body: Uint8Array | null }[]>`
      select body from webhook_deliveries where id = ${row.id}`;
    if (!found) throw new Error(`The body of delivery ${row.id} is missing`);
    return bytes(found.body);
  }

  async attempts(deliveryId: string): Promise<WebhookAttempt[]> {
    const rows = await this.sql<{ attempt: WebhookAttempt }[]>`
      select attempt from webhook_attempts where delivery_id = ${deliveryId} order by n`;
    return rows.map((r) => r.attempt);
  }

  createDelivery(
    change: DeliveryChange,
    body: Uint8Array | null,
    also?: WritePart,
  ): Promise<boolean> {
    return this.#writes.submit({ kind: "create", change, body, also });
  }

  updateDelivery(before: StoredDelivery, change: DeliveryChange): Promise<boolean> {
    return this.#writes.submit({ kind: "update", before, change });
  }

  async purgeDelivery(before: StoredDelivery): Promise<boolean> {
    const { id } = before.row;
    const [{ n }] = await this.sql<{ n: number }[]>`
      with purged as (
        delete from webhook_deliveries
        where id = ${id} and revision = ${Number(before.revision)} returning id
      ), unscheduled as (
        delete from webhook_schedule where delivery_id = ${id} and exists (select 1 from purged)
      )
      select count(*)::int as n from purged`;
    return n === 1;
  }

  /**
   * Pending deliveries whose attempt was due before `dueBefore`, except those a live claim of
   * some worker is attempting right now (they are under way, not lost).
   */
  async *overdue(dueBefore: number): AsyncIterable<StoredDelivery> {
    const before = Math.min(dueBefore, Number.MAX_SAFE_INTEGER);
    await this.sql`update webhook_deliveries set due_at = null
      where due_at < ${before} and status <> 'pending'`;
    let after = { dueAt: -1, id: "" };
    for (let page = OVERDUE_PAGE; page === OVERDUE_PAGE;) {
      const now = Date.now();
      const rows = await this.sql<(DeliveryRecord & { id: string; due_at: number })[]>`
        select d.id, d.due_at, d.delivery, d.revision from webhook_deliveries d
        where d.due_at < ${before} and d.status = 'pending'
          and (d.due_at, d.id) > (${after.dueAt}, ${after.id})
          and not exists (
            select 1 from webhook_schedule s
            where s.delivery_id = d.id and s.holder is not null and s.run_at > ${now}
          )
        order by d.due_at, d.id limit ${OVERDUE_PAGE}`;
      page = rows.length;
      if (page > 0) after = { dueAt: rows[page - 1].due_at, id: rows[page - 1].id };
      for (const row of rows) yield stored(row);
    }
  }

  async countByState(cap: number): Promise<{ pending: number; failed: number }> {
    const [counts] = await this.sql<{ pending: number; failed: number }[]>`
      select
        (select count(*)::int from (
          select 1 from webhook_deliveries
          where due_at is not null and status = 'pending' limit ${cap}
        ) p) as pending,
        (select count(*)::int from (
          select 1 from webhook_deliveries where failed limit ${cap}
        ) f) as failed`;
    return counts;
  }

  onDue(handler: (attempt: ScheduledAttempt) => Promise<void>): void {
    this.#schedule.start(handler);
  }

  redeliver(attempt: ScheduledAttempt, delayMs: number): Promise<void> {
    return this.#schedule.redeliver(attempt, delayMs);
  }

  idle(): Promise<void> {
    return this.#writes.idle();
  }

  /** Stops claiming due attempts, waits for those under way, then for the writes queued. */
  async close(): Promise<void> {
    await this.#schedule.close();
    await this.#writes.idle();
  }
}

/** A `bytea` as read (a Buffer, or null when no body was kept) as plain bytes. */
function bytes(value: Uint8Array | null): Uint8Array {
  return value === null ? new Uint8Array() : new Uint8Array(value);
}
