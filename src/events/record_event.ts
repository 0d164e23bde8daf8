/**
 * Record events: the vault emits one per insert, update or delete of a record, in the same
 * atomic operation as the change; webhook delivery consumes them.
 *
 * @module
 */
import { keys } from "../store/keys.ts";
import { setLargeValue } from "../store/large_value.ts";

/** Why a record event happened (the webhook body's `_reason`). */
export type RecordReason = "insert" | "update" | "delete";

/** A record as it was when the event happened. */
export interface RecordEvent {
  /** Unique id of this event. */
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

/** The queue message that announces an event. */
export const RECORD_EVENT_KIND = "record_event";

/**
 * Adds `event` to `op`: its snapshot (parts under `keys.recordEvent`) and a queue message
 * announcing it. The caller commits `op` with the record change itself.
 */
export function emitRecordEvent(op: Deno.AtomicOperation, event: RecordEvent): void {
  const parts = setLargeValue(op, keys.recordEvent(event.eventId), event);
  op.enqueue({ kind: RECORD_EVENT_KIND, eventId: event.eventId, parts });
}
