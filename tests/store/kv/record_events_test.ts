/** The record events outbox on Deno KV: an event's row in parts, written with its change. */
import assert from "node:assert/strict";
import { recordEvent as event } from "../_record_event.ts";
import { emitRecordEvent } from "../../../src/store/kv/record_events.ts";
import { keys } from "../../../src/store/kv/keys.ts";
import { readJsonParts } from "../../../src/store/kv/parts.ts";
import { KvWrite } from "../../../src/store/kv/write.ts";

/** The outbox parts stored under an event's key, in order. */
async function outboxParts(kv: Deno.Kv, eventId: string): Promise<Deno.KvKey[]> {
  const out: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix: keys.recordEvent(eventId) })) out.push(entry.key);
  return out;
}

Deno.test("emitRecordEvent: writes the outbox row in parts and returns their count", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const small = event({ name: "Ada", age: 36, tags: ["math"] });
    const large = event({ essay: "x".repeat(100 * 1024), name: "Grace" }, "update");
    const op = new KvWrite();
    const storedSmall = emitRecordEvent(op, small);
    const storedLarge = emitRecordEvent(op, large);
    // Nothing is written before the caller commits.
    assert.deepEqual(await outboxParts(kv, small.eventId), []);
    assert.equal(await op.commit(kv), true);

    assert.equal(storedSmall.event, small);
    assert.equal(storedSmall.parts, 1);
    assert.deepEqual(await outboxParts(kv, small.eventId), [[
      ...keys.recordEvent(small.eventId),
      0,
    ]]);
    assert.deepEqual(await readJsonParts(kv, keys.recordEvent(small.eventId)), small);

    const bytes = new TextEncoder().encode(JSON.stringify(large)).length;
    assert.ok(bytes > 60 * 1024);
    assert.equal(storedLarge.event, large);
    assert.equal(storedLarge.parts, Math.ceil(bytes / (60 * 1024)));
    assert.ok(storedLarge.parts >= 2);
    const parts = await outboxParts(kv, large.eventId);
    assert.deepEqual(
      parts,
      Array.from({ length: storedLarge.parts }, (_, i) => [...keys.recordEvent(large.eventId), i]),
    );
    assert.deepEqual(await readJsonParts(kv, keys.recordEvent(large.eventId)), large);
  } finally {
    kv.close();
  }
});
