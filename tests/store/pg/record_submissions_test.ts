import assert from "node:assert/strict";
import type { RecordWrite } from "../../../src/store/ports/records.ts";
import { PgRecords } from "../../../src/store/pg/records.ts";
import { pgPart } from "../../../src/store/pg/write_part.ts";
import { freshPg } from "../contract/_pg.ts";

function envelope(id: string, version = 1): RecordWrite {
  return {
    formId: "f1",
    recordId: id,
    schemaVersion: 1,
    values: { id },
    submissionId: id,
    appliedVersion: version,
  };
}

Deno.test("pg applySubmission: concurrent saves share transactions, parts run in them", async () => {
  const pg = await freshPg();
  try {
    const records = new PgRecords(pg.sql);
    const txids: number[] = [];
    const part = pgPart(async (tx) => {
      const [{ id }] = await tx<{ id: number }[]>`select txid_current() as id`;
      txids.push(id);
    });
    const ids = Array.from({ length: 60 }, (_, i) => `s${i}`);
    const outcomes = await Promise.all(
      ids.map((id) => records.applySubmission(envelope(id), [part])),
    );
    assert.ok(outcomes.every((o) => o === "record"));
    assert.equal(txids.length, 60);
    const transactions = new Set(txids).size;
    assert.ok(transactions <= 10, `60 saves in ${transactions} transactions`);
    assert.equal(await records.count("f1"), 60);
  } finally {
    await pg.close();
  }
});

Deno.test("pg applySubmission: a failing part fails its own save only, nothing of it written", async () => {
  const pg = await freshPg();
  try {
    const records = new PgRecords(pg.sql);
    const broken = pgPart(async (tx) => {
      await tx`select no_such_function()`;
    });
    const results = await Promise.allSettled([
      records.applySubmission(envelope("a"), []),
      records.applySubmission(envelope("b"), [broken]),
      records.applySubmission(envelope("c"), []),
    ]);
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "fulfilled"]);
    assert.match(String((results[1] as PromiseRejectedResult).reason), /no_such_function/);
    assert.equal(await records.get("f1", "b"), null);
    assert.deepEqual((await records.getMany("f1", ["a", "b", "c"])).map((r) => r._recordId), [
      "a",
      "c",
    ]);
  } finally {
    await pg.close();
  }
});

Deno.test("pg applySubmission: a missing or deleted record runs no parts", async () => {
  const pg = await freshPg();
  try {
    const records = new PgRecords(pg.sql);
    let ran = 0;
    const part = pgPart(() => Promise.resolve(void ran++));
    assert.equal(await records.applySubmission(envelope("a", 2), [part]), "missing");
    await records.applySubmission(envelope("b"), []);
    await records.delete("f1", "b");
    assert.equal(await records.applySubmission(envelope("b", 2), [part]), "deleted");
    assert.equal(ran, 0);
    assert.equal(await records.applySubmission(envelope("b", 1), [part]), "duplicate");
    assert.equal(ran, 1);
  } finally {
    await pg.close();
  }
});

Deno.test("pg applySubmission: an envelope and its amendment in one batch land in order", async () => {
  const pg = await freshPg();
  try {
    const records = new PgRecords(pg.sql);
    // The first two saves make a batch each (two in flight); the next three queue into one.
    const outcomes = await Promise.all([
      records.applySubmission(envelope("x"), []),
      records.applySubmission(envelope("y"), []),
      records.applySubmission(envelope("a"), []),
      records.applySubmission({ ...envelope("a", 2), values: { id: "a", v: 2 } }, []),
      records.applySubmission({ ...envelope("a", 3), values: { id: "a", v: 3 } }, []),
    ]);
    assert.deepEqual(outcomes, Array(5).fill("record"));
    assert.deepEqual((await records.get("f1", "a"))!.values, { id: "a", v: 3 });
    const versions = await records.versions("f1", "a", 10);
    assert.deepEqual(versions.map((v) => [v.reason, v.submissionVersion]), [
      ["insert", 1],
      ["update", 2],
      ["update", 3],
    ]);
  } finally {
    await pg.close();
  }
});

Deno.test("pg records: owner edits on one pool race amendments on another without a deadlock error", async () => {
  const pg = await freshPg();
  try {
    const owner = new PgRecords(pg.sql);
    const ingest = new PgRecords(pg.open());
    await ingest.applySubmission(envelope("s1"), []);
    const edits = Array.from(
      { length: 10 },
      () => owner.write("f1", "s1", (current) => ({ ...envelope("s1", current!.appliedVersion) })),
    );
    const amendments = (async () => {
      const outcomes = [];
      // One submission's versions come in order (the caller serialises them).
      for (let v = 2; v <= 6; v++) {
        outcomes.push(await ingest.applySubmission(envelope("s1", v), []));
      }
      return outcomes;
    })();
    // No deadlock error: an edit that lost ten times in a row answers "conflict", as documented.
    const saved = (await Promise.all(edits)).filter((outcome) => outcome === "saved").length;
    assert.ok(saved >= 1, `${saved} edits saved`);
    assert.deepEqual(await amendments, Array(5).fill("record"));
    assert.equal((await owner.versions("f1", "s1", 100)).length, 1 + saved + 5, "every write kept");
    assert.equal((await owner.get("f1", "s1"))!._submissionId, "s1");
  } finally {
    await pg.close();
  }
});
