/**
 * The record events outbox in PostgreSQL, as its consumer (webhook delivery) sees it, behind
 * the {@linkcode RecordEventOutbox} port. The outbox is the vault's table
 * `vault_record_events (event_id, event, created_at)` (the baseline migration): the vault inserts an event
 * in the record's transaction with `pg_notify('sealpost_record_events', event_id)`
 * (`record_event_rows.ts`).
 *
 * Every vault worker hears every announcement, so an event is taken by CLAIMING it
 * (`webhook_event_claims`: the holder and until when): an announcement or a scan hands this
 * process only the events it claimed, those claimed by another live worker are left to it,
 * and a claim whose lease ran out is taken over. A worker renews the leases of the events it
 * took, every third of the lease, until it removes them: only a dead worker's run out. Two engines on one
 * database thus do not both fan one event out; should a lease run out mid-way, the delivery's
 * id (from the event and the configuration) still writes each delivery once. A removal leaves
 * the claim: another worker's claim statement, begun before the removal committed, could
 * otherwise take the event it still sees; scans drop claims that outlived their lease and
 * their event.
 *
 * @module
 */
import type {
  OutboxScan,
  RecordEvent,
  RecordEventOutbox,
  StoredRecordEvent,
} from "../ports/record_events.ts";
import type { WritePart } from "../ports/write_part.ts";
import { Batcher } from "./batcher.ts";
import type { Sql } from "./db.ts";
import { RECORD_EVENTS_CHANNEL } from "./record_event_rows.ts";
import { pgPart } from "./write_part.ts";

/** Event ids read per statement while scanning. */
const SCAN_PAGE = 500;

/**
 * The consumer's side of the outbox in PostgreSQL; `leaseMs`: how long an event this process
 * took is left to it by the other processes unless renewed.
 *
 * @example
 * ```ts
 * const outbox = new PgRecordEventOutbox(sql, 30_000);
 * const stop = outbox.onAnnounced((events) => take(events));
 * ```
 */
export class PgRecordEventOutbox implements RecordEventOutbox {
  /** Names this process's claims. */
  readonly holder = `o_${crypto.getRandomValues(new Uint8Array(8)).toHex()}`;
  #listeners = new Set<(events: StoredRecordEvent[]) => void>();
  #listening: Promise<{ unlisten(): Promise<void> }> | null = null;
  /** Announced ids not yet read; read together once the current read is done. */
  #heard: string[] = [];
  #reading: Promise<void> | null = null;
  #removals: Batcher<string, void>;
  /** The events this process took and has not removed: their leases are renewed. */
  #held = new Set<string>();
  #renew: ReturnType<typeof setInterval> | null = null;

  constructor(private sql: Sql, private leaseMs: number) {
    this.#removals = new Batcher(async (ids) => {
      await this.sql`delete from vault_record_events where event_id in ${this.sql(ids)}`;
      return ids.map(() => undefined);
    }, { maxItems: 256 });
  }

  onAnnounced(listener: (events: StoredRecordEvent[]) => void): () => void {
    this.#listeners.add(listener);
    this.#listening ??= this.sql.listen(RECORD_EVENTS_CHANNEL, (id) => this.#hear(id));
    return () => this.#listeners.delete(listener);
  }

  /** Resolves once LISTEN is in place (announcements from then on are heard). */
  async listening(): Promise<void> {
    await this.#listening;
  }

  async scan(options: { skip(eventId: string): boolean; limit: number }): Promise<OutboxScan> {
    const now = Date.now();
    await this.sql`delete from webhook_event_claims c where c.until < ${now}
      and not exists (select 1 from vault_record_events e where e.event_id = c.event_id)`;
    const found: string[] = [];
    let more = false;
    let after = "";
    for (let page = SCAN_PAGE; page === SCAN_PAGE && !more;) {
      const rows = await this.sql<{ event_id: string }[]>`
        select e.event_id from vault_record_events e
        left join webhook_event_claims c on c.event_id = e.event_id
        where e.event_id > ${after}
          and (c.event_id is null or c.holder = ${this.holder} or c.until < ${now})
        order by e.event_id limit ${SCAN_PAGE}`;
      page = rows.length;
      for (const { event_id } of rows) {
        if (options.skip(event_id)) continue;
        if (found.length >= options.limit) {
          more = true;
          break;
        }
        found.push(event_id);
      }
      after = rows.at(-1)?.event_id ?? after;
    }
    const events = await this.#claim(found);
    return { events, more };
  }

  removal(stored: StoredRecordEvent): WritePart {
    const id = stored.event.eventId;
    this.#held.delete(id);
    return pgPart(async (tx) => {
      await tx`delete from vault_record_events where event_id = ${id}`;
    });
  }

  remove(stored: StoredRecordEvent): Promise<void> {
    this.#held.delete(stored.event.eventId);
    return this.#removals.submit(stored.event.eventId);
  }

  /** Stops listening and renewing; waits for the read and the removals under way. */
  async close(): Promise<void> {
    if (this.#renew !== null) clearInterval(this.#renew);
    this.#renew = null;
    this.#listeners.clear();
    const listening = this.#listening;
    this.#listening = null;
    if (listening) await listening.then((l) => l.unlisten()).catch(() => {}); // Gone with its connection.
    await this.#reading;
    await this.#removals.idle();
  }

  /** Moves the leases of the events this process holds a lease ahead again. */
  async #renewLeases(): Promise<void> {
    if (this.#held.size === 0) return;
    try {
      await this.sql`update webhook_event_claims set until = ${Date.now() + this.leaseMs}
        where holder = ${this.holder} and event_id = any(${[...this.#held]}::text[])`;
    } catch (err) {
      log("Renewing the claims of record events failed", err);
    }
  }

  /** Takes an announced id: read with the others heard meanwhile, once no read is under way. */
  #hear(eventId: string): void {
    if (this.#listeners.size === 0) return;
    this.#heard.push(eventId);
    this.#reading ??= this.#readHeard().finally(() => this.#reading = null);
  }

  async #readHeard(): Promise<void> {
    while (this.#heard.length > 0 && this.#listeners.size > 0) {
      const ids = this.#heard.splice(0);
      try {
        const events = await this.#claim(ids);
        if (events.length === 0) continue;
        for (const listener of [...this.#listeners]) listener(events);
      } catch (err) {
        // Left in the outbox: the consumer's next scan takes them.
        log("Reading announced record events failed", err);
      }
    }
  }

  /**
   * Claims those of `ids` still in the outbox and free (unclaimed, this process's, or their
   * lease run out), and reads them, in the order of `ids`.
   */
  async #claim(heard: string[]): Promise<StoredRecordEvent[]> {
    if (heard.length === 0) return [];
    const ids = [...new Set(heard)];
    const now = Date.now();
    const rows = await this.sql<{ event_id: string; event: RecordEvent }[]>`
      with claimed as (
        insert into webhook_event_claims (event_id, holder, until)
        select event_id, ${this.holder}, ${now + this.leaseMs} from vault_record_events
        where event_id in ${this.sql(ids)}
        on conflict (event_id) do update set holder = excluded.holder, until = excluded.until
        where webhook_event_claims.holder = excluded.holder
          or webhook_event_claims.until < ${now}
        returning event_id
      )
      select e.event_id, e.event from vault_record_events e
      join claimed c on c.event_id = e.event_id`;
    const byId = new Map(rows.map((r) => [r.event_id, r.event]));
    for (const id of byId.keys()) this.#held.add(id);
    this.#renew ??= setInterval(() => this.#renewLeases(), this.leaseMs / 3);
    return ids.flatMap((id) => {
      const event = byId.get(id);
      return event ? [{ event, parts: 1 }] : [];
    });
  }
}

function log(msg: string, err: unknown): void {
  console.error(JSON.stringify({ level: "error", msg, error: String(err) }));
}
