/** A record event of the form `contact` for store tests, with a fresh id. */
import { newEventId, type RecordEvent } from "../../src/store/ports/record_events.ts";

/** An event of record `r1` carrying `values`. */
export function recordEvent(
  values: Record<string, unknown>,
  reason: RecordEvent["reason"] = "insert",
): RecordEvent {
  return {
    eventId: newEventId(),
    reason,
    recordId: "r1",
    formId: "contact",
    schemaVersion: 1,
    savedAt: "2025-01-31T12:00:00.1230000+00:00",
    values,
  };
}
