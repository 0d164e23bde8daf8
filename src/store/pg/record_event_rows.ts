/**
 * The record events outbox on PostgreSQL (`vault_record_events`, the baseline migration): the vault
 * writes each event in the transaction of its record change, with a NOTIFY on channel
 * {@link RECORD_EVENTS_CHANNEL} (payload: the event id) that PostgreSQL delivers to every
 * listening process once the transaction commits. The webhook engine consumes the rows.
 *
 * @module
 */
import type { RecordEvent, StoredRecordEvent } from "../ports/record_events.ts";
import type { Tx } from "./db.ts";

/** The NOTIFY channel of committed record events; the payload is the event id. */
export const RECORD_EVENTS_CHANNEL = "sealpost_record_events";

/**
 * Inserts `events` into the outbox and notifies {@link RECORD_EVENTS_CHANNEL} of each, in one
 * statement of the committing transaction `tx`.
 *
 * @example
 * ```ts
 * await sql.begin(async (tx) => {
 *   await insertRecordEvents(tx, [event]);
 * });
 * ```
 */
export async function insertRecordEvents(
  tx: Tx,
  events: readonly RecordEvent[],
): Promise<StoredRecordEvent[]> {
  if (events.length === 0) return [];
  const rows = events.map((event) => ({ event_id: event.eventId, event }));
  await tx`
    with added as (
      insert into vault_record_events (event_id, event)
      select x.event_id, x.event
      from json_to_recordset(${JSON.stringify(rows)}::text::json) as x(event_id text, event json)
      returning event_id
    )
    select pg_notify(${RECORD_EVENTS_CHANNEL}, event_id) from added`;
  return events.map((event) => ({ event, parts: 1 }));
}

/**
 * Inserts one event into the outbox with its NOTIFY, in the committing transaction `tx`.
 *
 * @example
 * ```ts
 * const stored = await sql.begin((tx) => insertRecordEvent(tx, event));
 * ```
 */
export async function insertRecordEvent(tx: Tx, event: RecordEvent): Promise<StoredRecordEvent> {
  const [stored] = await insertRecordEvents(tx, [event]);
  return stored;
}
