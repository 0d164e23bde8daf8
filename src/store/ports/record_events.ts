/**
 * The record events outbox, as its consumer (webhook delivery) sees it: the vault writes an
 * event in the same atomic write as the record change (`emitRecordEvent`) and announces it
 * once committed; the consumer takes announced events, scans for those it missed, and removes
 * each in the write that records what it did with it. Contract suite:
 * `tests/store/contract/record_events.ts`.
 *
 * @module
 */

import type { StoredRecordEvent } from "../../events/record_event.ts";
import type { WritePart } from "./write_part.ts";

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
