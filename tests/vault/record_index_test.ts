/**
 * The records' time index, count and per-day counts: kept by inserts and deletes, paged by
 * cursor in both orders and between dates, and built by migration 2 for records saved before it.
 */
import assert from "node:assert/strict";
import { vaultKeys } from "../../src/store/keys.ts";
import { keys } from "../../src/store/keys.ts";
import { migrateStore } from "../../src/store/schema.ts";
import { recordCount, recordIdsByTime, recordsPerDay } from "../../src/vault/record_index.ts";
import {
  addRecordWrite,
  commitRecordChange,
  deleteRecord,
  recordVersions,
} from "../../src/vault/records.ts";

async function save(kv: Deno.Kv, recordId: string, values: Record<string, unknown>) {
  await commitRecordChange(kv, "f", recordId, (op, current) =>
    addRecordWrite(op, current, {
      formId: "f",
      recordId,
      schemaVersion: 1,
      values,
      submissionId: current?.submissionId ?? recordId,
      appliedVersion: (current?.appliedVersion ?? 0) + 1,
    }));
}

Deno.test("inserts and deletes keep the index, the count and the days; updates do not add", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    for (let i = 0; i < 7; i++) await save(kv, `r${i}`, { n: i });
    await save(kv, "r3", { n: 33 });
    assert.equal(await recordCount(kv, "f"), 7);
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(await recordsPerDay(kv, "f", today, today), new Map([[today, 7]]));
    const versions = await recordVersions(kv, "f", "r3");
    assert.deepEqual(versions.map((v) => [v.reason, v.submissionVersion, v.values]), [
      ["insert", 1, { n: 3 }],
      ["update", 2, { n: 33 }],
    ]);

    const first = await recordIdsByTime(kv, "f", { from: "", to: "", oldest: false, limit: 3 });
    assert.deepEqual(first.ids, ["r6", "r5", "r4"]);
    const next = await recordIdsByTime(kv, "f", {
      from: "",
      to: "",
      oldest: false,
      limit: 3,
      cursor: first.nextCursor!,
    });
    assert.deepEqual(next.ids, ["r3", "r2", "r1"]);
    const oldest = await recordIdsByTime(kv, "f", { from: "", to: "", oldest: true, limit: 2 });
    assert.deepEqual(oldest.ids, ["r0", "r1"]);
    const between = await recordIdsByTime(kv, "f", {
      from: today,
      to: today,
      oldest: true,
      limit: 50,
    });
    assert.equal(between.ids.length, 7);
    assert.equal(between.nextCursor, null);
    const before = await recordIdsByTime(kv, "f", {
      from: "",
      to: "2000-01-01",
      oldest: true,
      limit: 50,
    });
    assert.deepEqual(before.ids, []);

    await deleteRecord(kv, "f", "r3");
    assert.equal(await recordCount(kv, "f"), 6);
    assert.deepEqual(await recordsPerDay(kv, "f", today, today), new Map([[today, 6]]));
    assert.deepEqual(await recordVersions(kv, "f", "r3"), [], "the history goes with it");
    const all = await recordIdsByTime(kv, "f", { from: "", to: "", oldest: true, limit: 50 });
    assert.ok(!all.ids.includes("r3"));
  } finally {
    kv.close();
  }
});

Deno.test("migration 2 indexes the records a version-1 store saved, once", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await kv.set(vaultKeys.form("f"), { formId: "f" });
    for (let i = 0; i < 5; i++) await save(kv, `r${i}`, { n: i });
    await deleteRecord(kv, "f", "r0");
    // As version 1 left them: no index entries, no counts.
    for (const prefix of [vaultKeys.recordsByTime("f"), vaultKeys.recordDays("f")]) {
      for await (const entry of kv.list({ prefix })) await kv.delete(entry.key);
    }
    await kv.delete(vaultKeys.recordCount("f"));
    await kv.set(keys.schemaVersion(), 1);

    const result = await migrateStore(kv, "fixture");
    assert.equal(result.applied[0].to, 2); // then any later migration
    assert.equal(await recordCount(kv, "f"), 4);
    const ids = await recordIdsByTime(kv, "f", { from: "", to: "", oldest: true, limit: 50 });
    assert.deepEqual(ids.ids, ["r1", "r2", "r3", "r4"], "the deleted record stays out");
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(await recordsPerDay(kv, "f", today, today), new Map([[today, 4]]));

    await kv.set(keys.schemaVersion(), 1);
    await migrateStore(kv, "fixture"); // again: counts set from the index, not added
    assert.equal(await recordCount(kv, "f"), 4);
  } finally {
    kv.close();
  }
});
