/**
 * The vault's way of putting a record event in the PostgreSQL outbox, for the webhook tests:
 * `insertRecordEvent` (the row and its NOTIFY) in a transaction of its own.
 */
import type { RecordEvent, StoredRecordEvent } from "../../../src/store/ports/record_events.ts";
import type { Sql } from "../../../src/store/pg/db.ts";
import { insertRecordEvent } from "../../../src/store/pg/record_event_rows.ts";

/** Writes `event` to the outbox and announces it, as the vault does. */
export function emitPgRecordEvent(sql: Sql, event: RecordEvent): Promise<StoredRecordEvent> {
  return sql.begin((tx) => insertRecordEvent(tx, event));
}
