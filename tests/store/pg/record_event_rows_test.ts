import assert from "node:assert/strict";
import { newEventId, type RecordEvent } from "../../../src/store/ports/record_events.ts";
import {
  insertRecordEvent,
  RECORD_EVENTS_CHANNEL,
} from "../../../src/store/pg/record_event_rows.ts";
import { freshPg } from "../contract/_pg.ts";

function event(): RecordEvent {
  return {
    eventId: newEventId(),
    reason: "insert",
    recordId: "r1",
    formId: "f1",
    schemaVersion: 1,
    savedAt: "2025-01-01T00:00:00.0000000+00:00",
    values: { name: "Ada", n: 1 },
  };
}

Deno.test("pg record events: a row and a NOTIFY of its id once committed, neither on rollback", async () => {
  const pg = await freshPg();
  try {
    const heard: string[] = [];
    const listener = pg.open({ max: 1 });
    const kept = event();
    const dropped = event();
    // The channel is the cluster's: other tests' schemas announce on it too.
    const ours = new Set([kept.eventId, dropped.eventId]);
    const { unlisten } = await listener.listen(RECORD_EVENTS_CHANNEL, (id) => {
      if (ours.has(id)) heard.push(id);
    });
    const stored = await pg.sql.begin((tx) => insertRecordEvent(tx, kept));
    assert.deepEqual(stored, { event: kept, parts: 1 });
    await assert.rejects(pg.sql.begin(async (tx) => {
      await insertRecordEvent(tx, dropped);
      throw new Error("abort");
    }));
    const rows = await pg.sql<{ event_id: string; event: RecordEvent }[]>`
      select event_id, event from vault_record_events`;
    assert.deepEqual(rows.map((r) => [r.event_id, r.event]), [[kept.eventId, kept]]);
    // Kept as written: the webhook body lists values in the form's order, not jsonb's.
    assert.equal(JSON.stringify(rows[0].event), JSON.stringify(kept));
    for (let i = 0; i < 100 && heard.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // A last round trip on the listening pool: any notification of the rollback would be in.
    await listener`select 1`;
    assert.deepEqual(heard, [kept.eventId]);
    await unlisten();
  } finally {
    await pg.close();
  }
});
