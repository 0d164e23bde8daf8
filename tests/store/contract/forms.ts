/**
 * The forms port's contract: every implementation runs these tests (through the port only).
 */
import assert from "node:assert/strict";
import type { FormHead, FormsPort, FormVersion } from "../../../src/store/ports/forms.ts";
import { WriteTooLargeError } from "../../../src/store/ports/limits.ts";

/** A port under test and how to dispose of it. */
export interface FormsFixture {
  port: FormsPort;
  /** The forms port of a second handle on the same store (PostgreSQL: a second pool). */
  other: FormsPort;
  close(): Promise<void>;
}

function row(formId: string, schemaVersion = 1): FormHead {
  return {
    formId,
    userId: "u1",
    databaseId: "db1",
    schemaVersion,
    publishedVersion: null,
    publishedAt: null,
    createdAt: "2025-01-01T00:00:00.000Z",
    updatedAt: "2025-01-01T00:00:00.000Z",
    retentionDays: null,
  };
}

function version(formId: string, schemaVersion: number, title = "T"): FormVersion {
  return {
    formId,
    schemaVersion,
    title,
    fields: [{ id: "name", label: "Name", kind: "text" }],
    createdAt: "2025-01-01T00:00:00.000Z",
  };
}

/**
 * Registers the forms contract for the implementation `make` builds (a fresh store each time).
 *
 * @example
 * ```ts
 * formsContract("kv", async () => ({ port: new KvForms(kv), close: async () => kv.close() }));
 * ```
 */
export function formsContract(name: string, make: () => Promise<FormsFixture>): void {
  const test = (title: string, fn: (port: FormsPort, other: FormsPort) => Promise<void>) =>
    Deno.test(`forms port (${name}): ${title}`, async () => {
      const fixture = await make();
      try {
        await fn(fixture.port, fixture.other);
      } finally {
        await fixture.close();
      }
    });

  test("create writes the row and version 1 together; a taken id is refused", async (port) => {
    assert.equal(await port.get("f1"), null);
    assert.equal(await port.create(row("f1"), version("f1", 1)), true);
    assert.deepEqual(await port.get("f1"), row("f1"));
    assert.deepEqual(await port.version("f1", 1), version("f1", 1));
    assert.equal(await port.version("f1", 2), null);
    assert.equal(await port.create({ ...row("f1"), userId: "u2" }, version("f1", 1, "X")), false);
    assert.deepEqual(await port.get("f1"), row("f1"), "the first form stays");
    assert.deepEqual(await port.versions("f1"), [version("f1", 1)]);
  });

  test("list returns every form ordered by id", async (port) => {
    for (const id of ["fb", "fa", "fc"]) await port.create(row(id), version(id, 1));
    assert.deepEqual((await port.list()).map((r) => r.formId), ["fa", "fb", "fc"]);
  });

  test("update writes the row and a new version; earlier versions stay", async (port) => {
    await port.create(row("f1"), version("f1", 1));
    const result = await port.update("f1", (current) => ({
      row: { ...current, schemaVersion: 2 },
      version: version("f1", 2, "Second"),
    }));
    assert.notEqual(result, null);
    assert.notEqual(result, "conflict");
    assert.equal((await port.get("f1"))!.schemaVersion, 2);
    assert.deepEqual((await port.versions("f1")).map((v) => v.title), ["T", "Second"]);
    await port.update("f1", (current) => ({ row: { ...current, retentionDays: 7 } }));
    assert.equal((await port.get("f1"))!.retentionDays, 7);
    assert.equal((await port.versions("f1")).length, 2, "a row-only change archives nothing");
  });

  test("update of a missing form is null; an error in change writes nothing", async (port) => {
    assert.equal(await port.update("nope", (r) => ({ row: r })), null);
    await port.create(row("f1"), version("f1", 1));
    await assert.rejects(
      port.update("f1", () => {
        throw new RangeError("refused");
      }),
      RangeError,
    );
    assert.deepEqual(await port.get("f1"), row("f1"));
  });

  test("concurrent updates each land once (change re-runs on a conflict)", async (port) => {
    await port.create(row("f1"), version("f1", 1));
    await Promise.all(Array.from({ length: 4 }, () =>
      port.update("f1", (current) => ({
        row: { ...current, schemaVersion: current.schemaVersion + 1 },
        version: version("f1", current.schemaVersion + 1),
      }))));
    assert.equal((await port.get("f1"))!.schemaVersion, 5);
    assert.deepEqual((await port.versions("f1")).map((v) => v.schemaVersion), [1, 2, 3, 4, 5]);
  });

  test("updates and creates through two handles at once each land once", async (port, other) => {
    const created = await Promise.all(
      [port, other].map((p) => p.create(row("f1"), version("f1", 1))),
    );
    assert.deepEqual(created.sort(), [false, true]);
    await Promise.all([port, other, port, other].map((p) =>
      p.update("f1", (current) => ({
        row: { ...current, schemaVersion: current.schemaVersion + 1 },
        version: version("f1", current.schemaVersion + 1),
      }))
    ));
    assert.equal((await other.get("f1"))!.schemaVersion, 5);
    assert.deepEqual((await port.versions("f1")).map((v) => v.schemaVersion), [1, 2, 3, 4, 5]);
  });

  test("a version over the size limit is a WriteTooLargeError, nothing written", async (port) => {
    const huge = { ...version("f1", 1), title: "x".repeat(70_000) };
    await assert.rejects(port.create(row("f1"), huge), WriteTooLargeError);
    assert.equal(await port.get("f1"), null);
    await port.create(row("f1"), version("f1", 1));
    await assert.rejects(
      port.update(
        "f1",
        (r) => ({ row: { ...r, schemaVersion: 2 }, version: { ...huge, schemaVersion: 2 } }),
      ),
      WriteTooLargeError,
    );
    assert.equal((await port.get("f1"))!.schemaVersion, 1);
  });
}
