/**
 * The records port's contract (with the file releases port its writes feed, and the
 * quarantine port whose parts commit with ingest's writes): every implementation runs these
 * tests, through the ports only.
 */
import assert from "node:assert/strict";
import type { RecordEvent } from "../../../src/store/ports/record_events.ts";
import type { FileReleasesPort } from "../../../src/store/ports/file_releases.ts";
import type { QuarantinePort } from "../../../src/store/ports/quarantine.ts";
import {
  InvalidCursorError,
  type RecordsPort,
  RecordTooLargeError,
  type RecordWrite,
  savedAtOf,
} from "../../../src/store/ports/records.ts";

/** The ports under test, on one store, and how to dispose of them. */
export interface RecordsFixture {
  port: RecordsPort;
  /** The records port of a second handle on the same store (PostgreSQL: a second pool). */
  other: RecordsPort;
  quarantine: QuarantinePort;
  fileReleases: FileReleasesPort;
  /** Subscribes to the in-process announcements of committed record events (both handles). */
  onEvents(listener: (events: RecordEvent[]) => void): () => void;
  close(): Promise<void>;
}

const F = "f1";

/** An owner-made record's write. */
function own(recordId: string, values: Record<string, unknown>): RecordWrite {
  return { formId: F, recordId, schemaVersion: 1, values, submissionId: null, appliedVersion: 0 };
}

/** Envelope version `version` of submission `id`. */
function envelope(id: string, version: number, values: Record<string, unknown>): RecordWrite {
  return {
    formId: F,
    recordId: id,
    schemaVersion: 1,
    values,
    submissionId: id,
    appliedVersion: version,
  };
}

/** An owned file reference to `hash`. */
function file(hash: string) {
  return { owned: true, hash: hash.repeat(64).slice(0, 64) };
}

/**
 * Registers the records contract for the implementation `make` builds (a fresh store each).
 *
 * @example
 * ```ts
 * recordsContract("kv", makeKvFixture);
 * ```
 */
export function recordsContract(name: string, make: () => Promise<RecordsFixture>): void {
  const test = (title: string, fn: (t: RecordsFixture, events: RecordEvent[]) => Promise<void>) =>
    Deno.test(`records port (${name}): ${title}`, async () => {
      const fixture = await make();
      const events: RecordEvent[] = [];
      const stop = fixture.onEvents((batch) => events.push(...batch));
      try {
        await fn(fixture, events);
      } finally {
        stop();
        await fixture.close();
      }
    });

  test(
    "write inserts, then updates; one event each; versions, counts and index follow",
    async ({ port }, events) => {
      assert.equal(
        await port.write(F, "r1", (current) => {
          assert.equal(current, null);
          return own("r1", { name: "Ada" });
        }),
        "saved",
      );
      const first = (await port.get(F, "r1"))!;
      assert.deepEqual(first.values, { name: "Ada" });
      assert.equal(first._createdAt, first._savedAt);
      assert.match(first._savedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}\+00:00$/);
      assert.equal(
        await port.write(F, "r1", (current) => {
          assert.equal(current!.recordId, "r1");
          assert.equal(current!.createdAt, first._createdAt);
          return { ...own("r1", { name: "Ada L." }), schemaVersion: 2 };
        }),
        "saved",
      );
      const second = (await port.get(F, "r1"))!;
      assert.deepEqual(second.values, { name: "Ada L." });
      assert.equal(second._schemaVersion, 2);
      assert.equal(second._createdAt, first._createdAt, "creation time kept");
      assert.deepEqual(events.map((e) => [e.reason, e.recordId, e.values]), [
        ["insert", "r1", { name: "Ada" }],
        ["update", "r1", { name: "Ada L." }],
      ]);
      assert.equal(new Set(events.map((e) => e.eventId)).size, 2);
      const versions = await port.versions(F, "r1", 10);
      assert.deepEqual(versions.map((v) => [v.reason, v.schemaVersion, v.values]), [
        ["insert", 1, { name: "Ada" }],
        ["update", 2, { name: "Ada L." }],
      ]);
      assert.equal(await port.count(F), 1, "an update is not counted again");
      const day = first._createdAt.slice(0, 10);
      assert.deepEqual([...await port.perDay(F, day, day)], [[day, 1]]);
      assert.deepEqual(
        (await port.idsByTime(F, { from: "", to: "", oldest: false, limit: 10 })).ids,
        ["r1"],
      );
    },
  );

  test(
    "values of any size up to the limit read back the same; over it nothing is written",
    async ({ port }, events) => {
      const sizes = { inline: 100, parts: 40_000, large: 300_000 };
      for (const [id, n] of Object.entries(sizes)) {
        await port.write(F, id, () => own(id, { text: "x".repeat(n) }));
      }
      for (const [id, n] of Object.entries(sizes)) {
        assert.equal(((await port.get(F, id))!.values.text as string).length, n, id);
      }
      // Shrinking a large record back to inline drops its parts.
      await port.write(F, "large", () => own("large", { text: "small" }));
      assert.deepEqual((await port.get(F, "large"))!.values, { text: "small" });
      const before = events.length;
      await assert.rejects(
        port.write(F, "big", () => own("big", { text: "x".repeat(400 * 1024) })),
        RecordTooLargeError,
      );
      await assert.rejects(
        port.write(F, "inline", () => own("inline", { text: "x".repeat(400 * 1024) })),
        RecordTooLargeError,
      );
      assert.equal(await port.get(F, "big"), null);
      assert.equal(((await port.get(F, "inline"))!.values.text as string).length, 100);
      assert.equal(events.length, before, "no event for a refused write");
      assert.equal(await port.count(F), 3);
    },
  );

  test("versions keep values up to 48 KiB, oldest first; the newest is the record", async ({ port }) => {
    const sizes = [100, 30_000, 60_000, 200];
    for (const n of sizes) await port.write(F, "r1", () => own("r1", { text: "x".repeat(n) }));
    const versions = await port.versions(F, "r1", 10);
    assert.deepEqual(versions.map((v) => v.reason), ["insert", "update", "update", "update"]);
    assert.deepEqual(
      versions.map((v) => (v.values?.text as string | undefined)?.length ?? null),
      [100, 30_000, null, 200],
      "values over 48 KiB are not kept twice",
    );
    const times = versions.map((v) => v.savedAt);
    assert.deepEqual([...times].sort(), times);
    assert.equal(new Set(times).size, 4);
    assert.equal(times.at(-1), (await port.get(F, "r1"))!._savedAt);
    assert.deepEqual((await port.versions(F, "r1", 2)).map((v) => v.savedAt), times.slice(0, 2));
  });

  test("an error in change writes nothing; concurrent writes each land once", async ({ port }) => {
    await assert.rejects(
      port.write(F, "r1", () => {
        throw new RangeError("refused");
      }),
      RangeError,
    );
    assert.equal(await port.get(F, "r1"), null);
    await port.write(F, "r1", () => own("r1", { n: 0 }));
    await Promise.all(Array.from({ length: 5 }, () =>
      port.write(F, "r1", async (current) => {
        const record = (await port.get(F, current!.recordId))!;
        return own("r1", { n: (record.values.n as number) + 1 });
      })));
    assert.deepEqual((await port.get(F, "r1"))!.values, { n: 5 }, "no update lost");
    assert.equal((await port.versions(F, "r1", 100)).length, 6);
  });

  test(
    "delete: its event, counts, index and versions go; a submission's record stays a tombstone",
    async ({ port }, events) => {
      assert.equal(await port.delete(F, "nope"), "missing");
      await port.write(F, "own", () => own("own", { text: "x".repeat(30_000) }));
      assert.equal(await port.applySubmission(envelope("sub", 1, { name: "S" }), []), "record");
      assert.equal(await port.count(F), 2);
      assert.equal(await port.delete(F, "own"), "deleted");
      assert.equal(await port.delete(F, "sub"), "deleted");
      assert.equal(await port.delete(F, "sub"), "missing");
      assert.equal(await port.get(F, "own"), null);
      assert.equal(await port.get(F, "sub"), null);
      assert.deepEqual(await port.versions(F, "sub", 10), []);
      assert.equal(await port.count(F), 0);
      const day = new Date().toISOString().slice(0, 10);
      assert.deepEqual([...await port.perDay(F, day, day)], [], "a day with none is left out");
      assert.deepEqual(
        (await port.idsByTime(F, { from: "", to: "", oldest: true, limit: 10 })).ids,
        [],
      );
      assert.deepEqual((await port.list(F, undefined, 10)).items, []);
      assert.deepEqual(await Array.fromAsync(port.scan(F)), []);
      const deletes = events.filter((e) => e.reason === "delete");
      assert.deepEqual(deletes.map((e) => [e.recordId, Object.keys(e.values)]), [
        ["own", ["text"]],
        ["sub", ["name"]],
      ]);
      // The tombstone: the envelope again is a duplicate, an amendment finds the record deleted.
      assert.equal(await port.applySubmission(envelope("sub", 1, { name: "S" }), []), "duplicate");
      assert.equal(await port.applySubmission(envelope("sub", 2, { name: "T" }), []), "deleted");
      assert.equal(await port.get(F, "sub"), null);
      // An owner's record id is free again.
      assert.equal(
        await port.write(F, "own", (current) => {
          assert.equal(current, null);
          return own("own", { text: "again" });
        }),
        "saved",
      );
      assert.equal(events.at(-1)!.reason, "insert");
    },
  );

  test(
    "applySubmission: insert, duplicates, amendments in order, missing records",
    async ({ port }, events) => {
      assert.equal(await port.applySubmission(envelope("s1", 1, { v: 1 }), []), "record");
      assert.equal(await port.applySubmission(envelope("s1", 1, { v: 1 }), []), "duplicate");
      assert.equal(await port.applySubmission(envelope("s1", 3, { v: 3 }), []), "record");
      assert.equal(
        await port.applySubmission(envelope("s1", 2, { v: 2 }), []),
        "duplicate",
        "older",
      );
      assert.equal(await port.applySubmission(envelope("s2", 2, { v: 2 }), []), "missing");
      const record = (await port.get(F, "s1"))!;
      assert.deepEqual(record.values, { v: 3 });
      assert.equal(record._submissionId, "s1");
      assert.equal(await port.get(F, "s2"), null);
      assert.deepEqual(events.map((e) => [e.reason, e.values.v]), [["insert", 1], ["update", 3]]);
      assert.deepEqual(
        (await port.versions(F, "s1", 10)).map((v) => v.submissionVersion),
        [1, 3],
      );
      await assert.rejects(
        port.applySubmission(envelope("s3", 1, { text: "x".repeat(400 * 1024) }), []),
        RecordTooLargeError,
      );
    },
  );

  test("applySubmission commits its parts with the record, and with a duplicate", async ({ port, quarantine }) => {
    const entry = (id: string) => ({
      id,
      databaseId: "db1",
      fingerprint: "0".repeat(64),
      submissionId: id.split(".")[0],
      version: 1,
      formId: F,
      formVersion: 1,
      code: "invalid_values",
      reason: "r",
      receivedAt: "2025-01-01T00:00:00.000Z",
    });
    await quarantine.save(entry("s1.1"), new Uint8Array(100_000), null);
    await quarantine.save(entry("s1.x"), new Uint8Array(10), null);
    assert.equal(
      await port.applySubmission(envelope("s1", 1, { v: 1 }), [
        quarantine.removal("s1.1", 100_000),
      ]),
      "record",
    );
    assert.equal(await quarantine.get("s1.1"), null);
    assert.equal(await quarantine.ciphertext("s1.1"), null);
    assert.equal(
      await port.applySubmission(envelope("s1", 1, { v: 1 }), [quarantine.removal("s1.x", 10)]),
      "duplicate",
    );
    assert.equal(await quarantine.get("s1.x"), null, "a duplicate's parts commit too");
  });

  test(
    "concurrent saves of one submission: one record, the rest duplicates; owner edits race amendments without loss",
    async ({ port }, events) => {
      const same = await Promise.all(
        Array.from({ length: 4 }, () => port.applySubmission(envelope("s1", 1, { n: 0 }), [])),
      );
      assert.deepEqual(same.sort(), ["duplicate", "duplicate", "duplicate", "record"]);
      assert.equal(events.length, 1);
      // Owner edits (each adds one to n) and an amendment at once: every write lands once.
      const edits = Array.from({ length: 6 }, () =>
        port.write(F, "s1", async (current) => {
          const record = (await port.get(F, current!.recordId))!;
          return envelope("s1", current!.appliedVersion, { n: (record.values.n as number) + 1 });
        }));
      const amended = port.applySubmission(envelope("s1", 2, { n: 100 }), []);
      assert.deepEqual(await Promise.all(edits), Array(6).fill("saved"));
      assert.equal(await amended, "record");
      assert.equal(events.length, 8, "one event per write");
      assert.equal((await port.versions(F, "s1", 100)).length, 8);
      const n = (await port.get(F, "s1"))!.values.n as number;
      assert.ok(n >= 100 && n <= 106, `the amendment and the edits after it: n = ${n}`);
    },
  );

  test(
    "two workers saving the same submissions at once: one record and one event each",
    async ({ port, other }, events) => {
      const ids = Array.from({ length: 40 }, (_, i) => `w${String(i).padStart(2, "0")}`);
      const both = (version: number) =>
        Promise.all(
          ids.map((id) =>
            Promise.all(
              [port, other].map((p) =>
                p.applySubmission(envelope(id, version, { id, version }), [])
              ),
            )
          ),
        );
      for (const pair of await both(1)) assert.deepEqual(pair.sort(), ["duplicate", "record"]);
      assert.equal(await port.count(F), 40);
      assert.equal(events.length, 40, "one insert event per submission");
      for (const pair of await both(2)) assert.deepEqual(pair.sort(), ["duplicate", "record"]);
      assert.equal(events.length, 80, "one update event per amendment");
      assert.deepEqual((await other.get(F, "w07"))!.values, { id: "w07", version: 2 });
      assert.deepEqual(
        (await other.versions(F, "w07", 10)).map((v) => v.submissionVersion),
        [1, 2],
      );
    },
  );

  test("owner edits through two handles at once each land once", async ({ port, other }) => {
    await port.write(F, "r1", () => own("r1", { n: 0 }));
    const edit = (p: RecordsPort) =>
      p.write(F, "r1", async (current) => {
        const record = (await p.get(F, current!.recordId))!;
        return own("r1", { n: (record.values.n as number) + 1 });
      });
    const saved = await Promise.all([port, other, port, other, port, other].map(edit));
    assert.deepEqual(saved, Array(6).fill("saved"));
    assert.deepEqual((await other.get(F, "r1"))!.values, { n: 6 });
    assert.equal((await port.versions(F, "r1", 100)).length, 7);
  });

  test(
    "many submissions at once are all saved (writes share commits)",
    async ({ port }, events) => {
      const outcomes = await Promise.all(
        Array.from(
          { length: 150 },
          (_, i) => port.applySubmission(envelope(`s${String(i).padStart(3, "0")}`, 1, { i }), []),
        ),
      );
      assert.ok(outcomes.every((o) => o === "record"));
      assert.equal(await port.count(F), 150);
      assert.equal(events.length, 150);
      const page = await port.getMany(F, ["s149", "nope", "s000"]);
      assert.deepEqual(
        page.map((r) => r.values.i),
        [149, 0],
        "in the order asked, missing left out",
      );
    },
  );

  test("list pages in record-id order, skipping tombstones; scan yields live records", async ({ port }) => {
    for (const id of ["e", "a", "d", "c", "b", "g", "f"]) {
      await port.applySubmission(envelope(id, 1, { id }), []);
    }
    await port.delete(F, "c");
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await port.list(F, cursor, 3);
      seen.push(...page.items.map((r) => r._recordId));
      assert.ok(page.items.length <= 3);
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    assert.deepEqual(seen, ["a", "b", "d", "e", "f", "g"]);
    // Cursors are URL-safe; a cursor of another list, or no cursor at all, is refused.
    const first = await port.list(F, undefined, 2);
    assert.match(first.nextCursor!, /^[A-Za-z0-9_-]+$/);
    for (const bad of ["", "!!", first.nextCursor + "x"]) {
      await assert.rejects(port.list(F, bad || "-", 2), InvalidCursorError, bad);
    }
    const byTime = await port.idsByTime(F, { from: "", to: "", oldest: false, limit: 2 });
    assert.match(byTime.nextCursor!, /^[A-Za-z0-9_-]+$/);
    await assert.rejects(
      port.idsByTime(F, { from: "", to: "", oldest: false, limit: 2, cursor: "%%" }),
      InvalidCursorError,
    );
    const scanned = await Array.fromAsync(port.scan(F));
    assert.deepEqual(scanned.map((s) => s.head.recordId), ["a", "b", "d", "e", "f", "g"]);
    assert.deepEqual(await scanned[0].values(), { id: "a" });
  });

  test("idsByTime: newest or oldest first, day bounds, pages", async ({ port }) => {
    for (const id of ["r1", "r2", "r3", "r4", "r5"]) {
      await port.write(F, id, () => own(id, {}));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const all = await port.idsByTime(F, { from: "", to: "", oldest: true, limit: 10 });
    assert.deepEqual(all, { ids: ["r1", "r2", "r3", "r4", "r5"], nextCursor: null });
    const first = await port.idsByTime(F, { from: "", to: "", oldest: false, limit: 2 });
    assert.deepEqual(first.ids, ["r5", "r4"]);
    const second = await port.idsByTime(F, {
      from: "",
      to: "",
      oldest: false,
      limit: 2,
      cursor: first.nextCursor!,
    });
    assert.deepEqual(second.ids, ["r3", "r2"]);
    const today = new Date().toISOString().slice(0, 10);
    const range = { oldest: true, limit: 10 };
    assert.equal((await port.idsByTime(F, { ...range, from: today, to: today })).ids.length, 5);
    const bounded = { from: today, to: today, oldest: false, limit: 3 };
    const page1 = await port.idsByTime(F, bounded);
    const page2 = await port.idsByTime(F, { ...bounded, cursor: page1.nextCursor! });
    assert.deepEqual([...page1.ids, ...page2.ids], ["r5", "r4", "r3", "r2", "r1"]);
    assert.equal(page2.nextCursor, null);
    assert.deepEqual((await port.idsByTime(F, { ...range, from: "2999-01-01", to: "" })).ids, []);
    assert.deepEqual((await port.idsByTime(F, { ...range, from: "", to: "2000-01-01" })).ids, []);
    assert.deepEqual([...await port.perDay(F, "2000-01-01", "2000-12-31")], []);
  });

  test(
    "deleteCreatedBefore deletes the records created before the cutoff",
    async ({ port }, events) => {
      await port.write(F, "old1", () => own("old1", {}));
      await port.write(F, "old2", () => own("old2", {}));
      await new Promise((resolve) => setTimeout(resolve, 5));
      const cutoff = savedAtOf(new Date());
      await new Promise((resolve) => setTimeout(resolve, 5));
      await port.write(F, "new", () => own("new", {}));
      assert.equal(await port.deleteCreatedBefore(F, cutoff), 2);
      assert.equal(await port.get(F, "old1"), null);
      assert.ok(await port.get(F, "new"));
      assert.equal(await port.count(F), 1);
      assert.deepEqual(events.filter((e) => e.reason === "delete").map((e) => e.recordId), [
        "old1",
        "old2",
      ]);
      assert.equal(await port.deleteCreatedBefore(F, cutoff), 0);
    },
  );

  test("files dropped by an update or a delete are queued for release", async ({ port, fileReleases }) => {
    await port.write(F, "r1", () => own("r1", { a: file("a"), b: file("b") }));
    assert.deepEqual(await fileReleases.pending(10), []);
    await port.write(F, "r1", () => own("r1", { a: file("a") }));
    await port.delete(F, "r1");
    const pending = await fileReleases.pending(10);
    assert.deepEqual(pending.map((r) => [r.formId, r.recordId, r.hashes]), [
      [F, "r1", [file("b").hash]],
      [F, "r1", [file("a").hash]],
    ]);
    assert.deepEqual((await fileReleases.pending(1)).map((r) => r.id), [pending[0].id]);
    assert.deepEqual(
      (await fileReleases.pending(10, pending[0].id)).map((r) => r.id),
      [pending[1].id],
      "after an id",
    );
    assert.deepEqual(await fileReleases.pending(10, pending[1].id), []);
    await fileReleases.done(pending[0].id);
    await fileReleases.done(pending[0].id);
    assert.deepEqual((await fileReleases.pending(10)).map((r) => r.id), [pending[1].id]);
  });

  test("releaseUnkept releases what the record does not keep, and fails if it changes", async ({ port, quarantine, fileReleases }) => {
    const entry = {
      id: "s1.2",
      databaseId: "db1",
      fingerprint: "0".repeat(64),
      submissionId: "s1",
      version: 2,
      formId: F,
      formVersion: 1,
      code: "invalid_values",
      reason: "r",
      receivedAt: "2025-01-01T00:00:00.000Z",
    };
    await port.applySubmission(envelope("s1", 1, { a: file("a") }), []);
    await quarantine.save(entry, new Uint8Array(10), null);
    const claimed = [file("a").hash, file("c").hash];
    const stale = await port.releaseUnkept(F, "s1", claimed);
    await port.applySubmission(envelope("s1", 3, { a: file("a") }), []);
    assert.equal(await quarantine.discard("s1.2", stale), false, "the record changed");
    assert.ok(await quarantine.get("s1.2"));
    const part = await port.releaseUnkept(F, "s1", claimed);
    assert.equal(await quarantine.discard("s1.2", part), true);
    assert.deepEqual((await fileReleases.pending(10)).map((r) => r.hashes), [[file("c").hash]]);
    // With no live record, every claimed file is released.
    const none = await port.releaseUnkept(F, "nope", claimed);
    await quarantine.save({ ...entry, id: "n.1" }, new Uint8Array(10), null);
    assert.equal(await quarantine.discard("n.1", none), true);
    assert.deepEqual((await fileReleases.pending(10)).at(-1)!.hashes, claimed);
  });
}
