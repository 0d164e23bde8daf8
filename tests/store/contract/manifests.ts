/**
 * The contract of the manifests port (src/store/ports/manifests.ts), for any implementation.
 */
import assert from "node:assert/strict";
import { contractTests, type MakePort } from "./_suite.ts";
import {
  type ManifestPort,
  ManifestTooLargeError,
  type PublishedForm,
} from "../../../src/store/ports/manifests.ts";

/** Makes a fresh, empty port and closes it. */
export type MakeManifests = MakePort<ManifestPort>;

const form = (
  formId: string,
  schemaVersion: number,
  extra: Record<string, unknown> = {},
): PublishedForm => ({
  formId,
  userId: "u1",
  fingerprint: "fp1",
  publicKey: "A".repeat(43) + "=",
  schemaVersion,
  manifest: { formId, schemaVersion, ...extra },
  publishedAt: `2030-01-01T00:00:0${schemaVersion}.000Z`,
});

const NOW = "2030-01-02T03:04:05.000Z";

/** Registers the manifests contract's tests for implementation `name`. */
export function manifestsContract(name: string, make: MakeManifests): void {
  const test = contractTests("manifests", name, make);

  test("a first publish expects none; the row reads back as stored", async (p) => {
    assert.equal(await p.get("contact"), null);
    assert.equal(await p.put(form("contact", 1), null), true);
    assert.deepEqual(await p.get("contact"), form("contact", 1));
    assert.equal(await p.put(form("contact", 2), null), false, "one is published already");
    assert.deepEqual(await p.get("contact"), form("contact", 1));
  });

  test("a publish applies only over the row it read", async (p) => {
    await p.put(form("contact", 1), null);
    assert.equal(await p.put(form("contact", 2), form("contact", 1)), true);
    assert.equal(await p.put(form("contact", 3), form("contact", 1)), false, "stale read");
    assert.deepEqual(await p.get("contact"), form("contact", 2));
  });

  test("two publishes over the same read at once: exactly one applies", async (p) => {
    await p.put(form("contact", 1), null);
    const results = await Promise.all([
      p.put(form("contact", 2), form("contact", 1)),
      p.put(form("contact", 3), form("contact", 1)),
    ]);
    assert.deepEqual([...results].sort(), [false, true]);
    const winner = results[0] ? 2 : 3;
    assert.equal((await p.get("contact"))?.schemaVersion, winner);
  });

  test("forms are independent", async (p) => {
    await p.put(form("a", 1), null);
    await p.put(form("b", 1), null);
    assert.equal((await p.get("a"))?.formId, "a");
    assert.equal((await p.get("b"))?.formId, "b");
  });

  test("a closure reads back as stored, and a put without it reopens", async (p) => {
    await p.put(form("contact", 1), null);
    const closed = { ...form("contact", 1), closed: { message: "Gone fishing", closedAt: NOW } };
    assert.equal(await p.put(closed, form("contact", 1)), true);
    assert.deepEqual(await p.get("contact"), closed);
    assert.equal(await p.put(form("contact", 2), form("contact", 1)), false, "stale: open read");
    assert.equal(await p.put(form("contact", 1), closed), true);
    assert.deepEqual(await p.get("contact"), form("contact", 1));
    assert.equal("closed" in (await p.get("contact"))!, false);
  });

  test("a removal applies only over the row it read; the form reads as unpublished", async (p) => {
    await p.put(form("contact", 1), null);
    await p.put(form("other", 1), null);
    assert.equal(await p.remove(form("contact", 2)), false, "stale read");
    const closed = { ...form("contact", 1), closed: { message: "", closedAt: NOW } };
    assert.equal(await p.remove(closed), false, "the stored row is open");
    assert.equal(await p.remove(form("contact", 1)), true);
    assert.equal(await p.get("contact"), null);
    assert.equal(await p.remove(form("contact", 1)), false, "removed already");
    assert.deepEqual(await p.get("other"), form("other", 1));
    assert.equal(await p.put(form("contact", 3), null), true, "the id can be published again");
  });

  test("a row too large to store is a typed error, nothing written", async (p) => {
    // 40,000 characters above U+00FF: 80 KB stored, within a 64 KiB JSON limit in bytes.
    const big = form("big", 1, { title: "\u0101".repeat(40_000) });
    await assert.rejects(p.put(big, null), ManifestTooLargeError);
    assert.equal(await p.get("big"), null);
  });

  test("two processes publishing over the same read: exactly one applies", async (p, q) => {
    const firsts = await Promise.all([
      p.put(form("contact", 1), null),
      q.put(form("contact", 2), null),
    ]);
    assert.deepEqual([...firsts].sort(), [false, true]);
    const current = (await q.get("contact"))!;
    for (let v = 3; v < 8; v += 2) {
      const read = (await p.get("contact"))!;
      const results = await Promise.all([
        p.put(form("contact", v), read),
        q.put(form("contact", v + 1), read),
      ]);
      assert.deepEqual([...results].sort(), [false, true]);
      assert.equal((await q.get("contact"))?.schemaVersion, results[0] ? v : v + 1);
    }
    assert.notDeepEqual(await p.get("contact"), current);
  });
}
