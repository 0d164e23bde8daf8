/**
 * The outbox consumer: takes record events as the vault announces them, finds those it
 * missed (or had no room for) with a scan of the outbox, and hands each to `process` with at
 * most `maxActive` under way. An event leaves the outbox only with the deliveries it made
 * (see `fanout.ts`); one that fails stays for the next scan.
 *
 * @module
 */
import type { RecordEventOutbox, StoredRecordEvent } from "../store/ports/record_events.ts";
import type { Lifecycle } from "./lifecycle.ts";
import { savedAtMs } from "./values.ts";

/**
 * Settled events remembered (at least this many, at most twice), so a scan that read one
 * before it was settled skips it.
 */
const MAX_RECENT = 20_000;

/** What the consumer needs. */
export interface OutboxOptions {
  outbox: RecordEventOutbox;
  life: Lifecycle;
  /** Makes the deliveries of one event and removes it from the outbox. */
  process(stored: StoredRecordEvent): Promise<void>;
  /** Events held in memory at most; the rest wait in the outbox. */
  maxWaiting: number;
  /** Events processed at once. */
  maxActive: number;
}

/**
 * Feeds record events to `process`, each once at a time.
 *
 * @example
 * ```ts
 * const outbox = new OutboxConsumer({ outbox, life, process, maxWaiting: 10_000, maxActive: 512 });
 * outbox.start();
 * outbox.requestScan(0);
 * ```
 */
export class OutboxConsumer {
  /** Events waiting to be processed, oldest first. */
  #waiting: StoredRecordEvent[] = [];
  /** Ids of the events waiting or being processed. */
  #known = new Set<string>();
  /** Ids settled lately, in two generations of up to MAX_RECENT each. */
  #recent = new Set<string>();
  #older = new Set<string>();
  #active = 0;
  /** The youngest age an outbox scan asked for will take, or null when none is asked for. */
  #scanAge: number | null = null;
  #scanning = false;
  #unsubscribe: (() => void) | null = null;

  constructor(private options: OutboxOptions) {}

  /** Takes announced events from now on. */
  start(): void {
    this.#unsubscribe = this.options.outbox.onAnnounced((events) => this.#accept(events));
  }

  /** Takes no more; the waiting events stay in the outbox for the next start. */
  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    for (const { event } of this.#waiting) this.#known.delete(event.eventId);
    this.#waiting = [];
  }

  /** Asks for a scan of the outbox for events at least `minAgeMs` old. */
  requestScan(minAgeMs: number): void {
    this.#scanAge = Math.min(this.#scanAge ?? minAgeMs, minAgeMs);
    this.#pump();
  }

  /** Takes announced events; past `maxWaiting` the outbox keeps them for a scan. */
  #accept(events: StoredRecordEvent[]): void {
    if (this.options.life.stopping) return;
    for (const stored of events) {
      const id = stored.event.eventId;
      if (this.#known.has(id) || this.#settled(id)) continue;
      if (this.#waiting.length >= this.options.maxWaiting) {
        this.requestScan(0);
        continue;
      }
      this.#known.add(id);
      this.#waiting.push(stored);
    }
    this.#pump();
  }

  /** Starts waiting events while there is room; scans the outbox once nothing waits. */
  #pump(): void {
    const { life, maxActive } = this.options;
    while (!life.stopping && this.#active < maxActive && this.#waiting.length > 0) {
      const stored = this.#waiting.shift()!;
      const id = stored.event.eventId;
      this.#active++;
      const settle = () => {
        this.#active--;
        this.#known.delete(id);
        this.#pump();
      };
      life.track(() => this.options.process(stored)).then(() => {
        this.#remember(id);
        settle();
      }, (err) => {
        // Left in the outbox: a later scan takes it again.
        life.log("error", "Webhook event processing failed", { eventId: id, error: String(err) });
        settle();
      });
    }
    if (!life.stopping && !this.#scanning && this.#scanAge !== null && this.#waiting.length === 0) {
      const minAgeMs = this.#scanAge;
      this.#scanAge = null;
      this.#scanning = true;
      life.track(() => this.#scan(minAgeMs)).catch((err) =>
        life.log("error", "Webhook outbox scan failed", { error: String(err) })
      ).finally(() => {
        this.#scanning = false;
        this.#pump();
      });
    }
  }

  #remember(eventId: string): void {
    this.#recent.add(eventId);
    if (this.#recent.size < MAX_RECENT) return;
    this.#older = this.#recent;
    this.#recent = new Set();
  }

  #settled(eventId: string): boolean {
    return this.#recent.has(eventId) || this.#older.has(eventId);
  }

  /**
   * Reads events of the outbox saved at least `minAgeMs` ago that are neither waiting,
   * under way nor settled lately, until `maxWaiting` wait; if it stopped there, scans again
   * once they are taken.
   */
  async #scan(minAgeMs: number): Promise<void> {
    const { events, more } = await this.options.outbox.scan({
      skip: (id) => this.#known.has(id) || this.#settled(id),
      limit: this.options.maxWaiting - this.#waiting.length,
    });
    const now = Date.now();
    const found = events.filter(({ event }) => now - savedAtMs(event.savedAt) >= minAgeMs);
    if (more && found.length > 0) this.requestScan(minAgeMs);
    this.#accept(found);
  }
}
