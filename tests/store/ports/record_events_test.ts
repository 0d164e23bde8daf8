/** Record events: ids that sort by creation, and the announcements of one store. */
import assert from "node:assert/strict";
import { recordEvent as event } from "../_record_event.ts";
import {
  newEventId,
  RecordEventAnnouncer,
  type StoredRecordEvent,
} from "../../../src/store/ports/record_events.ts";

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

Deno.test("RecordEventAnnouncer: reaches its own listeners only, until they unsubscribe", () => {
  const one = new RecordEventAnnouncer();
  const other = new RecordEventAnnouncer();
  const seen: StoredRecordEvent[][] = [];
  const seenToo: StoredRecordEvent[][] = [];
  const seenOther: StoredRecordEvent[][] = [];
  const unsubscribe = one.listen((events) => seen.push(events));
  const unsubscribeToo = one.listen((events) => seenToo.push(events));
  const unsubscribeOther = other.listen((events) => seenOther.push(events));
  try {
    const batch: StoredRecordEvent[] = [
      { event: event({ name: "Ada" }), parts: 1 },
      { event: event({ name: "Grace" }, "update"), parts: 2 },
    ];
    one.announce(batch);
    assert.equal(seen.length, 1);
    assert.equal(seen[0], batch, "the listener gets the announced list itself");
    assert.deepEqual(seenToo, [batch], "every listener of the announcer hears it");
    assert.deepEqual(seenOther, [], "another announcer's listener is not called");

    // An empty list announces nothing.
    one.announce([]);
    other.announce([]);
    assert.equal(seen.length, 1);
    assert.equal(seenOther.length, 0);

    // The other announcer's announcement reaches only its own listener.
    const otherBatch: StoredRecordEvent[] = [{ event: event({ name: "Lin" }), parts: 1 }];
    other.announce(otherBatch);
    assert.deepEqual(seenOther, [otherBatch]);
    assert.equal(seen.length, 1);

    // After unsubscribing, a listener hears nothing more; the others still do.
    unsubscribe();
    const later: StoredRecordEvent[] = [{ event: event({ name: "Mae" }, "delete"), parts: 1 }];
    one.announce(later);
    assert.equal(seen.length, 1);
    assert.deepEqual(seenToo, [batch, later]);
    unsubscribeToo();
    one.announce(later);
    assert.equal(seenToo.length, 2);
    unsubscribe(); // twice is harmless
  } finally {
    unsubscribe();
    unsubscribeToo();
    unsubscribeOther();
  }
});
