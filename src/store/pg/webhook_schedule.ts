/**
 * The schedule of webhook attempts in PostgreSQL, shared by every vault worker of one
 * database: each scheduled (or redelivered) attempt is a row of `webhook_schedule` with the
 * time it comes due. A worker claims due rows with `for update skip locked`, moving them a
 * claim lease ahead under its name, and hands them to its handler; while the handler runs the
 * worker renews the lease every third of it; once handled the row goes, and one whose handler
 * threw comes again shortly. A worker killed meanwhile renews nothing: its rows come due again
 * when the lease runs out, for any worker to take.
 *
 * Workers look for due rows every `pollMs`, and at once when a write schedules an attempt
 * due sooner than that (NOTIFY on {@link DUE_CHANNEL}).
 *
 * @module
 */
import type { ScheduledAttempt } from "../ports/webhooks.ts";
import type { Sql } from "./db.ts";
import { DUE_CHANNEL } from "./webhook_delivery_writes.ts";

/** How the schedule is worked. */
export interface ScheduleOptions {
  /** How often a worker looks for due attempts. */
  pollMs: number;
  /**
   * How long a claimed attempt is its worker's unless renewed (every third of it while the
   * attempt runs): a dead worker's attempt comes due for every worker again after that.
   */
  claimLeaseMs: number;
  /** Attempts one worker has under way at most. */
  maxInFlight: number;
  /** When an attempt whose handler threw comes again. */
  retryMs: number;
}

interface ClaimedRow {
  id: number;
  delivery_id: string;
  webhook_id: string;
  token: string;
}

/**
 * Claims due attempts for this process and runs the handler on each.
 *
 * @example
 * ```ts
 * const schedule = new PgSchedule(sql, { pollMs: 1000, claimLeaseMs: 30_000, maxInFlight: 64, retryMs: 2000 });
 * schedule.start((attempt) => attempt(attempt));
 * await schedule.close();
 * ```
 */
export class PgSchedule {
  /** Names this process's claims. */
  readonly holder = `w_${crypto.getRandomValues(new Uint8Array(8)).toHex()}`;
  #handler: ((attempt: ScheduledAttempt) => Promise<void>) | null = null;
  #running = new Set<Promise<void>>();
  /** The rows whose handler runs here, their lease renewed. */
  #held = new Set<number>();
  #renew: ReturnType<typeof setInterval> | null = null;
  #poll: ReturnType<typeof setTimeout> | null = null;
  #wake: ReturnType<typeof setTimeout> | null = null;
  #wakeAt = Infinity;
  #listening: Promise<{ unlisten(): Promise<void> }> | null = null;
  #claiming = false;
  #again = false;
  #closed = false;

  constructor(private sql: Sql, private options: ScheduleOptions) {}

  /** Starts working the schedule with `handler` (one per process). */
  start(handler: (attempt: ScheduledAttempt) => Promise<void>): void {
    if (this.#handler) throw new Error("The webhook schedule has a handler already");
    this.#handler = handler;
    this.#listening = this.sql.listen(DUE_CHANNEL, (payload) => this.#wakeFor(Number(payload)));
    this.#listening.catch((err) => this.#log("Listening for due webhook attempts failed", err));
    this.#renew = setInterval(() => this.#renewLeases(), this.options.claimLeaseMs / 3);
    this.#tick();
  }

  /** Adds a row making `attempt` due in `delayMs`. */
  async redeliver(attempt: ScheduledAttempt, delayMs: number): Promise<void> {
    const runAt = Date.now() + Math.max(0, delayMs);
    await this.sql`insert into webhook_schedule (delivery_id, webhook_id, token, run_at)
      values (${attempt.deliveryId}, ${attempt.webhookId}, ${attempt.token}, ${runAt})`;
    if (delayMs < this.options.pollMs) {
      await this.sql`select pg_notify(${DUE_CHANNEL}, ${String(runAt)})`;
    }
  }

  /** Stops claiming and waits for the attempts under way. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#poll !== null) clearTimeout(this.#poll);
    if (this.#wake !== null) clearTimeout(this.#wake);
    const listening = this.#listening;
    this.#listening = null;
    if (listening) await listening.then((l) => l.unlisten()).catch(() => {}); // Gone with its connection.
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
    if (this.#renew !== null) clearInterval(this.#renew);
    this.#renew = null;
  }

  /** Moves the lease of the rows whose handler runs here a lease ahead again. */
  async #renewLeases(): Promise<void> {
    if (this.#held.size === 0) return;
    try {
      await this.sql`update webhook_schedule
        set run_at = ${Date.now() + this.options.claimLeaseMs}
        where holder = ${this.holder} and id in ${this.sql([...this.#held])}`;
    } catch (err) {
      this.#log("Renewing the leases of webhook attempts failed", err);
    }
  }

  /** Claims now, and again after `pollMs` give or take half (workers do not poll in step). */
  #tick(): void {
    if (this.#closed) return;
    this.#claim();
    const delay = this.options.pollMs * (0.5 + Math.random());
    this.#poll = setTimeout(() => this.#tick(), delay);
  }

  /** Claims at `runAt` (a NOTIFY's): now if due, else by timer unless the poll comes first. */
  #wakeFor(runAt: number): void {
    if (this.#closed) return;
    const delay = runAt - Date.now();
    if (!(delay > 0)) {
      this.#claim();
      return;
    }
    if (delay >= this.options.pollMs || runAt >= this.#wakeAt) return;
    if (this.#wake !== null) clearTimeout(this.#wake);
    this.#wakeAt = runAt;
    this.#wake = setTimeout(() => {
      this.#wake = null;
      this.#wakeAt = Infinity;
      this.#claim();
    }, delay);
  }

  /** Claims due rows while there is room, and starts their attempts. */
  async #claim(): Promise<void> {
    if (this.#claiming) {
      this.#again = true;
      return;
    }
    this.#claiming = true;
    try {
      do {
        this.#again = false;
        const room = this.options.maxInFlight - this.#running.size;
        if (room <= 0 || this.#closed) break;
        const rows = await this.#take(room);
        for (const row of rows) this.#run(row);
        if (rows.length === room) this.#again = true;
      } while (this.#again && !this.#closed);
    } catch (err) {
      this.#log("Claiming due webhook attempts failed", err);
    } finally {
      this.#claiming = false;
    }
  }

  /**
   * Moves up to `limit` due rows a lease ahead under this process's name. Rows it holds
   * itself are left out: their handler still runs here (one that ended took or reset its row).
   */
  async #take(limit: number): Promise<ClaimedRow[]> {
    const now = Date.now();
    return await this.sql<ClaimedRow[]>`
      update webhook_schedule s set run_at = ${now + this.options.claimLeaseMs},
        holder = ${this.holder}
      from (
        select id from webhook_schedule
        where run_at <= ${now} and holder is distinct from ${this.holder}
        order by run_at limit ${limit} for update skip locked
      ) due
      where s.id = due.id
      returning s.id, s.delivery_id, s.webhook_id, s.token`;
  }

  /** Runs the handler on `row`; then the row goes, or comes again if the handler threw. */
  #run(row: ClaimedRow): void {
    const attempt = { webhookId: row.webhook_id, deliveryId: row.delivery_id, token: row.token };
    const full = this.#running.size + 1 >= this.options.maxInFlight;
    const handler = this.#handler!;
    this.#held.add(row.id);
    const done = Promise.resolve().then(() => handler(attempt)).then(
      () => this.sql`delete from webhook_schedule where id = ${row.id} and holder = ${this.holder}`,
      () =>
        this.sql`update webhook_schedule set run_at = ${Date.now() + this.options.retryMs},
          holder = null where id = ${row.id} and holder = ${this.holder}`,
    ).then(() => {}, (err) => this.#log("Settling a webhook attempt's schedule row failed", err))
      .finally(() => {
        this.#held.delete(row.id);
        this.#running.delete(done);
        if (full && !this.#closed) this.#claim();
      });
    this.#running.add(done);
  }

  /** Logs a failure, unless closing (the pool may be gone: the leases then run out). */
  #log(msg: string, err: unknown): void {
    if (this.#closed) return;
    console.error(JSON.stringify({ level: "error", msg, error: String(err) }));
  }
}
