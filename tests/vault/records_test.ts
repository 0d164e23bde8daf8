/** The rules every record write follows: timestamps, sizes, owned files. */
import assert from "node:assert/strict";
import {
  checkRecordSize,
  MAX_RECORD_BYTES,
  nextSavedAt,
  ownedHashes,
  recordClaimant,
  RecordTooLargeError,
} from "../../src/vault/records.ts";

Deno.test("nextSavedAt: now, or one tick after a change of the same millisecond", () => {
  const now = new Date("2025-01-31T12:00:00.123Z");
  assert.equal(nextSavedAt(undefined, now), "2025-01-31T12:00:00.1230000+00:00");
  assert.equal(
    nextSavedAt("2025-01-31T12:00:00.1220000+00:00", now),
    "2025-01-31T12:00:00.1230000+00:00",
  );
  assert.equal(
    nextSavedAt("2025-01-31T12:00:00.1230000+00:00", now),
    "2025-01-31T12:00:00.1230001+00:00",
  );
  assert.equal(
    nextSavedAt("2025-01-31T12:00:00.1230041+00:00", now),
    "2025-01-31T12:00:00.1230042+00:00",
  );
  // A clock that went back still moves forward.
  assert.equal(
    nextSavedAt("2025-01-31T12:00:05.0000000+00:00", now),
    "2025-01-31T12:00:05.0000001+00:00",
  );
  let at: string | undefined;
  const seen: string[] = [];
  for (let i = 0; i < 100; i++) seen.push(at = nextSavedAt(at, now));
  assert.deepEqual([...seen].sort(), seen);
  assert.equal(new Set(seen).size, 100);
});

Deno.test("checkRecordSize: JSON bytes, a RecordTooLargeError over the limit", () => {
  assert.equal(checkRecordSize({ a: "é" }), JSON.stringify({ a: "é" }).length + 1);
  const over = { text: "x".repeat(MAX_RECORD_BYTES) };
  assert.throws(() => checkRecordSize(over), RecordTooLargeError);
});

Deno.test("ownedHashes and recordClaimant", () => {
  const hash = "ab".repeat(32);
  assert.deepEqual(
    ownedHashes({ a: { owned: true, hash }, b: { owned: true, hash }, c: { hash: "x" }, d: null }),
    [hash],
  );
  assert.equal(recordClaimant("f12", "a1b2"), "f12/a1b2");
});
