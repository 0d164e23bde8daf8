/**
 * The vault's record events outbox on PostgreSQL as the webhook tests need it: the table
 * `vault_record_events` (created by the vault's migration 4; created here, `if not exists`,
 * until that migration is on this branch) and the vault's way of writing an event: inserted
 * with `pg_notify('sealpost_record_events', event_id)` in one transaction. Only the columns
 * the vault's migration fixes are used.
 */
import type { RecordEvent, StoredRecordEvent } from "../../../src/events/record_event.ts";
import type { Sql } from "../../../src/store/pg/db.ts";
import { json } from "../../../src/store/pg/json.ts";
import { RECORD_EVENTS_CHANNEL } from "../../../src/store/pg/record_events.ts";

/** Creates `vault_record_events` unless the migrations made it. */
export async function ensureRecordEventsTable(sql: Sql): Promise<void> {
  await sql`create table if not exists vault_record_events (
    event_id text primary key,
    event jsonb not null,
    created_at timestamptz not null default now()
  )`;
}

/** Writes `event` to the outbox and announces it, as the vault does. */
export async function emitPgRecordEvent(sql: Sql, event: RecordEvent): Promise<StoredRecordEvent> {
  await sql.begin(async (tx) => {
    await tx`insert into vault_record_events (event_id, event)
      values (${event.eventId}, ${json(event)}::jsonb)`;
    await tx`select pg_notify(${RECORD_EVENTS_CHANNEL}, ${event.eventId})`;
  });
  return { event, parts: 1 };
}
