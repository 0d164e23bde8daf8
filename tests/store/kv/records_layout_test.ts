/**
 * Records as earlier releases left them in Deno KV (tests about layouts): migration 2 builds
 * the time index, count and per-day counts of a version-1 store; a record whose newest version
 * has a row of its own (as releases before the head counted as a version wrote it) lists it once;
 * a page cursor as those releases gave it out (Deno KV's, with its padding) still works.
 */
import assert from "node:assert/strict";
import { keys, vaultKeys } from "../../../src/store/kv/keys.ts";
import { KvRecords } from "../../../src/store/kv/records.ts";
import { migrateStore } from "../../../src/store/kv/schema.ts";

Deno.test("migration 2 indexes the records a version-1 store saved, once", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const records = new KvRecords(kv);
    await kv.set(vaultKeys.form("f"), { formId: "f" });
    for (let i = 0; i < 5; i++) {
      const id = `r${i}`;
      const write = { formId: "f", recordId: id, schemaVersion: 1, values: { n: i } };
      await records.applySubmission({ ...write, submissionId: id, appliedVersion: 1 }, []);
    }
    assert.equal(await records.delete("f", "r0"), "deleted");
    // As version 1 left them: no index entries, no counts.
    for (const prefix of [vaultKeys.recordsByTime("f"), vaultKeys.recordDays("f")]) {
      for await (const entry of kv.list({ prefix })) await kv.delete(entry.key);
    }
    await kv.delete(vaultKeys.recordCount("f"));
    await kv.set(keys.schemaVersion(), 1);

    const result = await migrateStore(kv, "fixture");
    assert.equal(result.applied[0].to, 2); // then any later migration
    assert.equal(await records.count("f"), 4);
    const ids = await records.idsByTime("f", { from: "", to: "", oldest: true, limit: 50 });
    assert.deepEqual(ids.ids, ["r1", "r2", "r3", "r4"], "the deleted record stays out");
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(await records.perDay("f", today, today), new Map([[today, 4]]));

    await kv.set(keys.schemaVersion(), 1);
    await migrateStore(kv, "fixture"); // again: counts set from the index, not added
    assert.equal(await records.count("f"), 4);
  } finally {
    kv.close();
  }
});

Deno.test("a record with a saved row for its newest version lists that version once", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const records = new KvRecords(kv);
    const write = { formId: "f", recordId: "r", schemaVersion: 1, values: { n: 1 } };
    await records.applySubmission({ ...write, submissionId: "r", appliedVersion: 1 }, []);
    const [newest] = await records.versions("f", "r", 10);
    // As an earlier release wrote it: the insert's own row beside the head.
    await kv.set(vaultKeys.recordVersion("f", "r", newest.savedAt), newest);
    assert.deepEqual(await records.versions("f", "r", 10), [newest]);
    await records.applySubmission({
      ...write,
      values: { n: 2 },
      submissionId: "r",
      appliedVersion: 2,
    }, []);
    const versions = await records.versions("f", "r", 10);
    assert.deepEqual(versions.map((v) => [v.reason, v.values]), [
      ["insert", { n: 1 }],
      ["update", { n: 2 }],
    ]);
  } finally {
    kv.close();
  }
});

Deno.test("a padded Deno KV cursor, as earlier releases gave out, pages the same", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const records = new KvRecords(kv);
    for (const id of ["a", "bb", "ccc", "dddd", "eeeee"]) {
      const write = { formId: "f", recordId: id, schemaVersion: 1, values: {} };
      await records.applySubmission({ ...write, submissionId: id, appliedVersion: 1 }, []);
    }
    for (let limit = 1; limit <= 3; limit++) {
      const { nextCursor } = await records.list("f", undefined, limit);
      const padded = nextCursor + "=".repeat((4 - nextCursor!.length % 4) % 4);
      assert.deepEqual(await records.list("f", padded, 2), await records.list("f", nextCursor!, 2));
    }
  } finally {
    kv.close();
  }
});
