/**
 * The records table's query: parsing, search, date range, sorts, and the per-day chart data.
 */
import assert from "node:assert/strict";
import { parseQuery, perDay, selectRecords, usesIndex } from "../../src/console/record_query.ts";
import type { ScannedRecord } from "../../src/store/ports/records.ts";

/** A scanned record; `reads` counts the reads of its values. */
function scanned(recordId: string, createdAt: string, savedAt: string, values: object) {
  const record: ScannedRecord & { reads: number } = {
    head: {
      recordId,
      formId: "f",
      schemaVersion: 1,
      createdAt,
      savedAt,
      submissionId: null,
      appliedVersion: 0,
      files: [],
    },
    reads: 0,
    values: () => {
      record.reads++;
      return Promise.resolve(values as Record<string, unknown>);
    },
  };
  return record;
}

Deno.test("parseQuery: defaults for anything malformed", () => {
  assert.deepEqual(parseQuery({}), {
    q: "",
    from: "",
    to: "",
    sort: "newest",
    page: 1,
    cursor: "",
  });
  const q = parseQuery({
    q: "  ada ",
    from: "2025-01-02",
    to: "2025-13",
    sort: "oldest",
    page: "3",
    cursor: "abc_-1",
  });
  assert.deepEqual(q, {
    q: "ada",
    from: "2025-01-02",
    to: "",
    sort: "oldest",
    page: 3,
    cursor: "abc_-1",
  });
  assert.equal(parseQuery({ sort: "__proto__", page: "-1", cursor: "a b" }).sort, "newest");
  assert.equal(parseQuery({ page: "1.5" }).page, 1);
  assert.equal(parseQuery({ cursor: "a/b" }).cursor, "");
  assert.ok(usesIndex(parseQuery({ sort: "oldest", from: "2025-01-01" })));
  assert.ok(!usesIndex(parseQuery({ q: "x" })));
  assert.ok(!usesIndex(parseQuery({ sort: "updated" })));
});

Deno.test("selectRecords: search values, dates, sorts; values read only to search", async () => {
  const records = [
    scanned("a", "2025-01-01T10:00:00Z", "2025-03-01T00:00:00Z", { name: "Ada" }),
    scanned("b", "2025-01-02T10:00:00Z", "2025-01-02T10:00:00Z", { name: "Bob" }),
    scanned("c", "2025-01-03T10:00:00Z", "2025-01-03T10:00:00Z", { name: "Cyd" }),
  ];
  const ids = async (params: Record<string, string>) =>
    (await selectRecords(records, parseQuery(params))).map((h) => h.recordId);
  assert.deepEqual(await ids({}), ["c", "b", "a"]);
  assert.deepEqual(records.map((r) => r.reads), [0, 0, 0], "no search, no values read");
  assert.deepEqual(await ids({ sort: "oldest" }), ["a", "b", "c"]);
  assert.deepEqual(await ids({ sort: "updated" }), ["a", "c", "b"]);
  assert.deepEqual(await ids({ q: "ADA" }), ["a"]);
  assert.deepEqual(await ids({ q: "cyd" }), ["c"]);
  assert.deepEqual(await ids({ from: "2025-01-02" }), ["c", "b"]);
  assert.deepEqual(await ids({ to: "2025-01-02" }), ["b", "a"]);
  assert.deepEqual(await ids({ from: "2025-01-02", to: "2025-01-02" }), ["b"]);
});

Deno.test("perDay: the last N days, oldest first, zeros filled in", () => {
  const counts = new Map([["2025-06-07", 3], ["2025-06-05", 1], ["2025-05-01", 9]]);
  assert.deepEqual(perDay(counts, 3, "2025-06-07"), [
    { day: "2025-06-05", count: 1 },
    { day: "2025-06-06", count: 0 },
    { day: "2025-06-07", count: 3 },
  ]);
});
