/**
 * Record events: the vault emits one per insert, update or delete of a record, in the same
 * atomic operation as the change; webhook delivery consumes them.
 *
 * An event is a row of the outbox (`keys.recordEvent`), written with the change and deleted
 * by the consumer in the operation that records what it did with it, so an event committed
 * is never lost. After the commit the writer announces it in-process
 * ({@link announceRecordEvents}); the consumer works from the announcement, with no store
 * round trip, and scans the outbox on start and for anything an announcement missed.
 *
 * @module
 */
import { keys } from "../store/kv/keys.ts";
import { writeJsonParts } from "../store/kv/parts.ts";
import type { KvWrite } from "../store/kv/write.ts";

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
  /** Parts of its outbox row (`keys.recordEvent(eventId)`), needed to delete it. */
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
 * Adds `event` to `op` as an outbox row. The caller commits `op` with the record change
 * itself, then announces the result with {@link announceRecordEvents}.
 */
export function emitRecordEvent(w: KvWrite, event: RecordEvent): StoredRecordEvent {
  return { event, parts: writeJsonParts(w, keys.recordEvent(event.eventId), event) };
}

/**
 * Listeners by store handle: the writers and the consumer of one process share it (a
 * `Deno.Kv`, or a PostgreSQL pool, whose other processes learn of events by NOTIFY).
 */
const listeners = new WeakMap<object, Set<RecordEventListener>>();

/** Tells this process's consumers of `store`'s events that `events` are committed. */
export function announceRecordEvents(store: object, events: StoredRecordEvent[]): void {
  if (events.length === 0) return;
  for (const listener of listeners.get(store) ?? []) listener(events);
}

/** Subscribes to announcements of `store`'s committed events; returns the unsubscribe. */
export function onRecordEvents(store: object, listener: RecordEventListener): () => void {
  let set = listeners.get(store);
  if (!set) listeners.set(store, set = new Set());
  set.add(listener);
  return () => set.delete(listener);
}
