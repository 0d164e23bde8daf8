/**
 * The record events outbox rows of Deno KV (`keys.recordEvent`: an event's JSON in parts) and
 * their in-process announcements: one process owns a KV file, so the writers and the consumer
 * of one store share its handle, and listeners are kept per handle.
 *
 * @module
 */
import type {
  RecordEvent,
  RecordEventListener,
  StoredRecordEvent,
} from "../../events/record_event.ts";
import { keys } from "../keys.ts";
import { writeJsonParts } from "../parts.ts";
import type { KvWrite } from "../write.ts";

/**
 * Adds `event` to `w` as an outbox row. The caller commits `w` with the record change
 * itself, then announces the result with {@link announceRecordEvents}.
 */
export function emitRecordEvent(w: KvWrite, event: RecordEvent): StoredRecordEvent {
  return { event, parts: writeJsonParts(w, keys.recordEvent(event.eventId), event) };
}

/** Listeners by store: the writers and the consumer of one process share the KV handle. */
const listeners = new WeakMap<Deno.Kv, Set<RecordEventListener>>();

/** Tells this process's consumers of `kv`'s events that `events` are committed. */
export function announceRecordEvents(kv: Deno.Kv, events: StoredRecordEvent[]): void {
  if (events.length === 0) return;
  for (const listener of listeners.get(kv) ?? []) listener(events);
}

/** Subscribes to announcements of `kv`'s committed events; returns the unsubscribe. */
export function onRecordEvents(kv: Deno.Kv, listener: RecordEventListener): () => void {
  let set = listeners.get(kv);
  if (!set) listeners.set(kv, set = new Set());
  set.add(listener);
  return () => set.delete(listener);
}
