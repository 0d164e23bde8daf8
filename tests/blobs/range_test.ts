import assert from "node:assert/strict";
import { parseRange } from "../../src/blobs/range.ts";

Deno.test("parseRange: single ranges", () => {
  const partial = (start: number, end: number) => ({ kind: "partial", range: { start, end } });
  assert.deepEqual(parseRange("bytes=0-99", 1000), partial(0, 99));
  assert.deepEqual(parseRange("bytes=100-", 1000), partial(100, 999));
  assert.deepEqual(parseRange("bytes=-100", 1000), partial(900, 999));
  assert.deepEqual(parseRange("bytes=-5000", 1000), partial(0, 999));
  assert.deepEqual(parseRange("bytes=990-5000", 1000), partial(990, 999));
  assert.deepEqual(parseRange("bytes=999-999", 1000), partial(999, 999));
  assert.deepEqual(parseRange("bytes= 5 - 9", 1000), partial(5, 9));
});

Deno.test("parseRange: past the end is unsatisfiable", () => {
  assert.deepEqual(parseRange("bytes=1000-", 1000), { kind: "unsatisfiable" });
  assert.deepEqual(parseRange("bytes=1000-2000", 1000), { kind: "unsatisfiable" });
  assert.deepEqual(parseRange("bytes=-0", 1000), { kind: "unsatisfiable" });
});

Deno.test("parseRange: none, malformed or several ranges serve the whole", () => {
  for (
    const header of [
      undefined,
      null,
      "",
      "bytes=-",
      "bytes=9-5",
      "bytes=0-1,5-6",
      "items=0-5",
      "bytes=a-b",
      "bytes=0-99999999999999999",
    ]
  ) {
    assert.deepEqual(parseRange(header, 1000), { kind: "full" }, String(header));
  }
});
