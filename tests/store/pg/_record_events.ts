/**
 * The vault's way of writing a record event on PostgreSQL, for the webhook tests: inserted
 * into `vault_record_events` with its NOTIFY in one transaction (insertRecordEvent, as the
 * records port does with each change).
 */
import type { RecordEvent, StoredRecordEvent } from "../../../src/events/record_event.ts";
import type { Sql } from "../../../src/store/pg/db.ts";
import { insertRecordEvent } from "../../../src/store/pg/record_event_rows.ts";

/** Writes `event` to the outbox and announces it, as the vault does. */
export function emitPgRecordEvent(sql: Sql, event: RecordEvent): Promise<StoredRecordEvent> {
  return sql.begin((tx) => insertRecordEvent(tx, event));
}
