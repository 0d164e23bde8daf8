/**
 * The quarantine port's contract: every implementation runs these tests (through the port
 * only; the parts it commits come from the port itself).
 */
import assert from "node:assert/strict";
import type { QuarantineEntry, QuarantinePort } from "../../../src/store/ports/quarantine.ts";

/** A port under test and how to dispose of it. */
export interface QuarantineFixture {
  port: QuarantinePort;
  /** The quarantine port of a second handle on the same store (PostgreSQL: a second pool). */
  other: QuarantinePort;
  close(): Promise<void>;
}

function entry(id: string, code = "unknown_form_version"): QuarantineEntry {
  const [submissionId, version] = id.split(".");
  return {
    id,
    databaseId: "db1",
    fingerprint: "0".repeat(64),
    submissionId,
    version: Number(version),
    formId: "f1",
    formVersion: 2,
    code,
    reason: `because ${code}`,
    receivedAt: "2025-01-01T00:00:00.000Z",
  };
}

/** `n` bytes that differ from part to part. */
function box(n: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 7 + (i >> 10)) & 0xff);
}

/**
 * Registers the quarantine contract for the implementation `make` builds.
 *
 * @example
 * ```ts
 * quarantineContract("kv", makeKvFixture);
 * ```
 */
export function quarantineContract(name: string, make: () => Promise<QuarantineFixture>): void {
  const test = (
    title: string,
    fn: (port: QuarantinePort, other: QuarantinePort) => Promise<void>,
  ) =>
    Deno.test(`quarantine port (${name}): ${title}`, async () => {
      const fixture = await make();
      try {
        await fn(fixture.port, fixture.other);
      } finally {
        await fixture.close();
      }
    });

  test("save keeps the row and its box (small, in parts, and over one write)", async (port) => {
    const sizes = { "a.1": 48, "b.1": 200_000, "c.1": 2 * 1024 * 1024 + 5 };
    for (const [id, n] of Object.entries(sizes)) await port.save(entry(id), box(n), null);
    for (const [id, n] of Object.entries(sizes)) {
      const row = await port.get(id);
      assert.deepEqual({ ...row, quarantinedAt: undefined, parts: undefined }, {
        ...entry(id),
        quarantinedAt: undefined,
        parts: undefined,
      });
      assert.ok(!Number.isNaN(Date.parse(row!.quarantinedAt)));
      assert.deepEqual(await port.ciphertext(id), box(n), `box of ${id}`);
    }
    assert.deepEqual((await port.list()).map((row) => row.id), ["a.1", "b.1", "c.1"]);
    assert.equal(await port.count(100), 3);
    assert.equal(await port.count(2), 2, "counted up to the cap");
    assert.equal(await port.get("z.1"), null);
    assert.equal(await port.ciphertext("z.1"), null);
  });

  test("saving again keeps quarantinedAt and the box, replaces code and reason", async (port) => {
    await port.save(entry("a.1"), box(100), null);
    const first = (await port.get("a.1"))!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await port.save(entry("a.1", "invalid_values"), box(100), null);
    const again = (await port.get("a.1"))!;
    assert.equal(again.quarantinedAt, first.quarantinedAt);
    assert.equal(again.code, "invalid_values");
    assert.equal(again.reason, "because invalid_values");
    assert.deepEqual(await port.ciphertext("a.1"), box(100));
    assert.equal((await port.list()).length, 1);
  });

  test("discard deletes the row and its box; a missing row is false", async (port) => {
    await port.save(entry("a.1"), box(150_000), null);
    assert.equal(await port.discard("a.1", null), true);
    assert.equal(await port.get("a.1"), null);
    assert.equal(await port.ciphertext("a.1"), null);
    assert.equal(await port.discard("a.1", null), false);
    assert.equal(await port.count(100), 0);
  });

  test("parts commit with another write: a removal as the ack of a save, and with a discard", async (port) => {
    await port.save(entry("a.1"), box(70_000), null);
    await port.save(entry("b.1"), box(10), null);
    await port.save(entry("c.1"), box(10), null);
    // A save whose "ack" removes another row.
    await port.save(entry("d.1"), box(10), port.removal("a.1", 70_000));
    assert.equal(await port.get("a.1"), null);
    assert.equal(await port.ciphertext("a.1"), null);
    assert.ok(await port.get("d.1"));
    // A discard that removes another row in the same write.
    assert.equal(await port.discard("b.1", port.removal("c.1", 10)), true);
    assert.deepEqual((await port.list()).map((row) => row.id), ["d.1"]);
    // Removing what is not there is no error.
    assert.equal(await port.discard("d.1", port.removal("zz.1", 10)), true);
    assert.deepEqual(await port.list(), []);
  });

  test("two handles saving and discarding one envelope at once", async (port, other) => {
    await Promise.all(
      [port, other, port, other].map((p) => p.save(entry("a.1"), box(90_000), null)),
    );
    assert.equal(await other.count(10), 1);
    assert.deepEqual(await port.ciphertext("a.1"), box(90_000));
    const discarded = await Promise.all([port, other].map((p) => p.discard("a.1", null)));
    assert.deepEqual(discarded.sort(), [false, true]);
    assert.equal(await other.get("a.1"), null);
  });
}
