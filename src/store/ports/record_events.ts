/**
 * Record events: the records port writes one per insert, update or delete of a record, in the
 * same atomic write as the change, as a row of the outbox; webhook delivery consumes them. An
 * event committed is never lost: the consumer removes it in the write that records what it did
 * with it. After the commit the writer announces it in this process
 * ({@link RecordEventAnnouncer}, shared by the records port and the outbox of one store, like
 * an envelope port's `onQueued`); the consumer works from the announcement, with no store round
 * trip, and scans the outbox on start and for anything an announcement missed. Contract suite:
 * `tests/store/contract/record_events.ts`.
 *
 * @module
 */
import type { WritePart } from "./write_part.ts";

/** Why a record event happened (the webhook body's `_reason`). */
export type RecordReason = "insert" | "update" | "delete";

/** A record as it was when the event happened. */
export interface RecordEvent {
  /** Unique id of this event; ids sort by creation time. */
  eventId: string;
  reason: RecordReason;
  recordId: string;
  formId: string;
  /** The form's schemaVersion the values were validated against. */
  schemaVersion: number;
  /** `yyyy-MM-ddTHH:mm:ss.fffffff+00:00` */
  savedAt: string;
  /** Values by field id, in the vault's strict shapes. */
  values: Record<string, unknown>;
}

/** An event as stored in the outbox: the event and the part count of its row. */
export interface StoredRecordEvent {
  event: RecordEvent;
  /** The backend's own note of how the row is kept (Deno KV: its part count), to remove it. */
  parts: number;
}

/** Receives announcements of committed events. */
export type RecordEventListener = (events: StoredRecordEvent[]) => void;

let lastIdMs = 0;
let idCounter = 0;

/**
 * A new event id: milliseconds and a per-process counter (so ids of one process sort in
 * creation order), then randomness.
 *
 * @example
 * ```ts
 * newEventId(); // "0mhx8k2a90000d1c2e3f4a5b6c7d8" (29 characters)
 * ```
 */
export function newEventId(now = Date.now()): string {
  if (now > lastIdMs) {
    lastIdMs = now;
    idCounter = 0;
  }
  const count = (idCounter++).toString(36).padStart(4, "0");
  return `${lastIdMs.toString(36).padStart(9, "0")}${count}${
    crypto.getRandomValues(new Uint8Array(8)).toHex()
  }`;
}

/**
 * The announcements of one store's committed record events in this process: the records port
 * announces after each commit, the outbox (and any test) listens. One per store, handed to both
 * ports by the backend's composition; no module-level registry.
 *
 * @example
 * ```ts
 * const announcer = new RecordEventAnnouncer();
 * const stop = announcer.listen((events) => console.log(events.length));
 * announcer.announce(committed);
 * stop();
 * ```
 */
export class RecordEventAnnouncer {
  readonly #listeners = new Set<RecordEventListener>();

  /** Tells every listener that `events` are committed (nothing for an empty list). */
  announce(events: StoredRecordEvent[]): void {
    if (events.length === 0) return;
    for (const listener of this.#listeners) listener(events);
  }

  /** Calls `listener` with every announcement from now on; answers the unsubscribe. */
  listen(listener: RecordEventListener): () => void {
    const own: RecordEventListener = (events) => listener(events);
    this.#listeners.add(own);
    return () => this.#listeners.delete(own);
  }
}

/** What one scan found. */
export interface OutboxScan {
  /** Events in the outbox not skipped, oldest first by id. */
  events: StoredRecordEvent[];
  /** True when it stopped at the limit with more events left. */
  more: boolean;
}

/**
 * The consumer's side of the record events outbox.
 *
 * @example
 * ```ts
 * const stop = outbox.onAnnounced((events) => take(events));
 * const { events } = await outbox.scan({ skip: (id) => known.has(id), limit: 512 });
 * await deliveries.createDelivery(change, body, outbox.removal(events[0]));
 * ```
 */
export interface RecordEventOutbox {
  /**
   * Calls `listener` with the events this process's writers announce from now on (each after
   * its commit); returns the unsubscribe.
   */
  onAnnounced(listener: (events: StoredRecordEvent[]) => void): () => void;
  /**
   * Reads the events in the outbox, in event id order, leaving out those `skip` names, until
   * `limit` are found.
   */
  scan(options: { skip(eventId: string): boolean; limit: number }): Promise<OutboxScan>;
  /** The removal of `stored` from the outbox, to commit with another write (idempotent). */
  removal(stored: StoredRecordEvent): WritePart;
  /** Removes `stored` from the outbox on its own (idempotent); resolves once durable. */
  remove(stored: StoredRecordEvent): Promise<void>;
}
