import assert from "node:assert/strict";
import {
  announceRecordEvents,
  emitRecordEvent,
  newEventId,
  onRecordEvents,
  type RecordEvent,
  type StoredRecordEvent,
} from "../../src/events/record_event.ts";
import { keys } from "../../src/store/kv/keys.ts";
import { readJsonParts } from "../../src/store/kv/parts.ts";
import { KvWrite } from "../../src/store/kv/write.ts";

function event(values: Record<string, unknown>, reason: RecordEvent["reason"] = "insert") {
  return {
    eventId: newEventId(),
    reason,
    recordId: "r1",
    formId: "contact",
    schemaVersion: 1,
    savedAt: "2025-01-31T12:00:00.1230000+00:00",
    values,
  } satisfies RecordEvent;
}

/** The outbox parts stored under an event's key, in order. */
async function outboxParts(kv: Deno.Kv, eventId: string): Promise<Deno.KvKey[]> {
  const out: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix: keys.recordEvent(eventId) })) out.push(entry.key);
  return out;
}

Deno.test("newEventId: 10,000 ids are unique and sort in creation order, same millisecond too", () => {
  const ids: string[] = [];
  for (let i = 0; i < 10_000; i++) ids.push(newEventId());
  assert.equal(new Set(ids).size, ids.length, "unique");
  assert.deepEqual([...ids].sort(), ids, "sorted as created");
  for (const id of ids) assert.match(id, /^[0-9a-z]{13}[0-9a-f]{16}$/);
  // The leading 9 characters are the millisecond: the loop made many ids per millisecond,
  // so the per-process counter is what keeps them apart and in order.
  const perMs = new Map<string, number>();
  for (const id of ids) perMs.set(id.slice(0, 9), (perMs.get(id.slice(0, 9)) ?? 0) + 1);
  assert.ok(Math.max(...perMs.values()) > 1, "several ids shared a millisecond");

  // Forced into one millisecond, and with a clock that steps back: still increasing.
  const now = Date.now();
  const same = Array.from({ length: 1000 }, () => newEventId(now));
  const earlier = Array.from({ length: 10 }, () => newEventId(now - 5_000));
  const all = [...same, ...earlier];
  assert.equal(new Set(all).size, all.length);
  assert.deepEqual([...all].sort(), all);
  assert.ok(same.every((id) => id.startsWith(now.toString(36).padStart(9, "0"))));
  // And a later real id still sorts after all of them.
  const after = newEventId(now + 1);
  assert.ok(after > all.at(-1)!);
});

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

Deno.test("announceRecordEvents: reaches this handle's listeners only, until they unsubscribe", async () => {
  const kv = await Deno.openKv(":memory:");
  const other = await Deno.openKv(":memory:");
  const seen: StoredRecordEvent[][] = [];
  const seenToo: StoredRecordEvent[][] = [];
  const seenOther: StoredRecordEvent[][] = [];
  const unsubscribe = onRecordEvents(kv, (events) => seen.push(events));
  const unsubscribeToo = onRecordEvents(kv, (events) => seenToo.push(events));
  const unsubscribeOther = onRecordEvents(other, (events) => seenOther.push(events));
  try {
    const batch: StoredRecordEvent[] = [
      { event: event({ name: "Ada" }), parts: 1 },
      { event: event({ name: "Grace" }, "update"), parts: 2 },
    ];
    announceRecordEvents(kv, batch);
    assert.equal(seen.length, 1);
    assert.equal(seen[0], batch, "the listener gets the announced list itself");
    assert.deepEqual(seenToo, [batch], "every listener of the handle hears it");
    assert.deepEqual(seenOther, [], "another handle's listener is not called");

    // An empty list announces nothing.
    announceRecordEvents(kv, []);
    announceRecordEvents(other, []);
    assert.equal(seen.length, 1);
    assert.equal(seenOther.length, 0);

    // The other handle's announcement reaches only its own listener.
    const otherBatch: StoredRecordEvent[] = [{ event: event({ name: "Lin" }), parts: 1 }];
    announceRecordEvents(other, otherBatch);
    assert.deepEqual(seenOther, [otherBatch]);
    assert.equal(seen.length, 1);

    // After unsubscribing, a listener hears nothing more; the others still do.
    unsubscribe();
    const later: StoredRecordEvent[] = [{ event: event({ name: "Mae" }, "delete"), parts: 1 }];
    announceRecordEvents(kv, later);
    assert.equal(seen.length, 1);
    assert.deepEqual(seenToo, [batch, later]);
    unsubscribeToo();
    announceRecordEvents(kv, later);
    assert.equal(seenToo.length, 2);
    unsubscribe(); // twice is harmless
  } finally {
    unsubscribe();
    unsubscribeToo();
    unsubscribeOther();
    kv.close();
    other.close();
  }
});
