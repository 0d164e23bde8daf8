/** The rules every record write follows: timestamps, sizes, owned files. */
import assert from "node:assert/strict";
import {
  checkRecordSize,
  MAX_RECORD_BYTES,
  nextSavedAt,
  ownedHashes,
  RecordTooLargeError,
} from "../../../src/store/ports/records.ts";
import { recordClaimant } from "../../../src/vault/file_release.ts";

Deno.test("nextSavedAt: now, or one tick after a change of the same millisecond", () => {
  const now = new Date("2025-01-31T12:00:00.123Z");
  const at = (ms: string, ticks: string) => `2025-01-31T12:00:${ms}${ticks}+00:00`;
  const cases: [string | undefined, string, string][] = [
    [undefined, at("00.123", "0000"), "no change before"],
    [at("00.122", "0000"), at("00.123", "0000"), "an earlier millisecond"],
    [at("00.123", "0000"), at("00.123", "0001"), "the same millisecond"],
    [at("00.123", "0041"), at("00.123", "0042"), "ticks on"],
    [at("05.000", "0000"), at("05.000", "0001"), "a clock that went back"],
  ];
  for (const [previous, next, why] of cases) assert.equal(nextSavedAt(previous, now), next, why);
  let last: string | undefined;
  const seen: string[] = [];
  for (let i = 0; i < 100; i++) seen.push(last = nextSavedAt(last, now));
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
