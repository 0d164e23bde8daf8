import assert from "node:assert/strict";
import { newEventId } from "../../src/events/record_event.ts";

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
