/**
 * The contract of the blob metadata port (src/store/ports/blob_meta.ts), for any
 * implementation.
 */
import assert from "node:assert/strict";
import { contractTests, type MakePort } from "./_suite.ts";
import {
  type BlobMetaPort,
  type OrphanCandidate,
  QuotaExceededError,
} from "../../../src/store/ports/blob_meta.ts";

/** Makes a fresh, empty port and closes it. */
export type MakeBlobMeta = MakePort<BlobMetaPort>;

const H = (c: string) => c.repeat(64);
const T0 = Date.parse("2030-01-01T00:00:00Z");
const at = (ms: number) => new Date(T0 + ms);
const QUOTA = 1000;

async function orphans(port: BlobMetaPort, cutoffMs: number): Promise<OrphanCandidate[]> {
  return await Array.fromAsync(port.orphans(cutoffMs));
}

/** Registers the blob metadata contract's tests for implementation `name`. */
export function blobMetaContract(name: string, make: MakeBlobMeta): void {
  const test = contractTests("blob meta", name, make);
  const upload = (p: BlobMetaPort, user: string, hash: string, size: number, ms = 0) =>
    p.recordUpload({ userId: user, hash }, { mime: "text/plain", sizeBytes: size }, QUOTA, at(ms));

  test("an upload creates an unclaimed row and counts once", async (p) => {
    assert.equal(await p.get({ userId: "u1", hash: H("a") }), null);
    assert.deepEqual(await p.usage("u1"), { bytes: 0, count: 0 });
    const first = await upload(p, "u1", H("a"), 300);
    assert.equal(first.created, true);
    assert.deepEqual(first.meta, {
      userId: "u1",
      hash: H("a"),
      mime: "text/plain",
      sizeBytes: 300,
      uploadedAt: at(0).toISOString(),
      claimedAt: null,
      claims: 0,
    });
    assert.deepEqual(await p.get({ userId: "u1", hash: H("a") }), first.meta);
    const again = await upload(p, "u1", H("a"), 300, 5_000);
    assert.equal(again.created, false);
    assert.equal(again.meta.uploadedAt, at(5_000).toISOString(), "an unclaimed blob is refreshed");
    assert.deepEqual(await p.usage("u1"), { bytes: 300, count: 1 });
    await upload(p, "u2", H("a"), 100);
    assert.deepEqual(await p.usage("u2"), { bytes: 100, count: 1 }, "usage is per user");
    assert.deepEqual(await p.totalUsage(), { bytes: 400, count: 2 });
  });

  test("the quota holds, for stored and new blobs alike, under concurrent uploads", async (p) => {
    await upload(p, "u1", H("a"), 600);
    await assert.rejects(upload(p, "u1", H("b"), 401), QuotaExceededError);
    await assert.rejects(upload(p, "u1", H("a"), 401), QuotaExceededError, "no existence oracle");
    const results = await Promise.allSettled(
      ["c", "d", "e"].map((c) => upload(p, "u1", H(c), 300)),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    assert.deepEqual(await p.usage("u1"), { bytes: 900, count: 2 });
  });

  test("claims are idempotent per claimant and counted per claimant", async (p) => {
    await upload(p, "u1", H("a"), 10);
    const one = await p.claim("u1", [H("a"), H("a"), H("z")], at(1_000), "f/r1");
    assert.deepEqual(one, { claimed: [H("a")], missing: [H("z")] });
    await p.claim("u1", [H("a")], at(2_000), "f/r1");
    await p.claim("u1", [H("a")], at(3_000), "f/r2");
    const meta = await p.get({ userId: "u1", hash: H("a") });
    assert.equal(meta?.claims, 2);
    assert.equal(meta?.claimedAt, at(1_000).toISOString(), "the first claim's time is kept");
    assert.deepEqual(await p.claim("u2", [H("a")], at(0), "f/r1"), {
      claimed: [],
      missing: [H("a")],
    }, "another user's blob is not stored for this user");
  });

  test("a claimed blob is no orphan; its last release makes it one from then", async (p) => {
    await upload(p, "u1", H("a"), 10);
    await p.claim("u1", [H("a")], at(1_000), "f/r1");
    await p.claim("u1", [H("a")], at(1_000), "f/r2");
    assert.deepEqual(await orphans(p, T0 + 10_000), []);
    assert.deepEqual(await p.release("u1", [H("a")], at(2_000), "f/r1"), { unclaimed: [] });
    assert.deepEqual(await p.release("u1", [H("a")], at(2_000), "f/r1"), { unclaimed: [] });
    assert.deepEqual(await p.release("u1", [H("a")], at(3_000), "f/r2"), {
      unclaimed: [H("a")],
    });
    const meta = await p.get({ userId: "u1", hash: H("a") });
    assert.deepEqual([meta?.claims, meta?.claimedAt, meta?.uploadedAt], [
      0,
      null,
      at(3_000).toISOString(),
    ]);
    assert.deepEqual(await orphans(p, T0 + 2_999), [], "the grace period starts anew");
    assert.deepEqual(await orphans(p, T0 + 3_000), [
      { userId: "u1", hash: H("a"), uploadedAtMs: T0 + 3_000 },
    ]);
  });

  test("orphans are listed oldest first up to the cutoff and forgotten with their usage", async (p) => {
    await upload(p, "u1", H("b"), 20, 2_000);
    await upload(p, "u1", H("a"), 10, 1_000);
    await upload(p, "u2", H("c"), 30, 3_000);
    const listed = await orphans(p, T0 + 2_000);
    assert.deepEqual(listed.map((c) => c.hash), [H("a"), H("b")]);
    const gone = await p.forgetOrphan(listed[0], T0 + 2_000);
    assert.equal(gone?.sizeBytes, 10);
    assert.equal(await p.get({ userId: "u1", hash: H("a") }), null);
    assert.deepEqual(await p.usage("u1"), { bytes: 20, count: 1 });
    assert.equal(await p.forgetOrphan(listed[0], T0 + 2_000), null, "forgotten once");
    assert.deepEqual((await orphans(p, T0 + 2_000)).map((c) => c.hash), [H("b")]);
  });

  test("a candidate that moved on is kept and not listed again", async (p) => {
    await upload(p, "u1", H("a"), 10, 1_000);
    await upload(p, "u1", H("b"), 10, 1_000);
    const [a, b] = await orphans(p, T0 + 5_000);
    await p.claim("u1", [H("a")], at(2_000), "f/r1");
    await upload(p, "u1", H("b"), 10, 9_000);
    assert.equal(await p.forgetOrphan(a, T0 + 5_000), null, "claimed meanwhile");
    assert.equal(await p.forgetOrphan(b, T0 + 5_000), null, "re-uploaded after the cutoff");
    assert.deepEqual(await orphans(p, T0 + 5_000), []);
    assert.deepEqual(await p.usage("u1"), { bytes: 20, count: 2 });
    assert.equal((await orphans(p, T0 + 9_000)).length, 1, "b is an orphan again later");
  });

  test("claims of many hashes at once (over one batch) all apply", async (p) => {
    const hashes = Array.from({ length: 120 }, (_, i) => i.toString(16).padStart(64, "0"));
    for (const hash of hashes) await upload(p, "u1", hash, 1);
    const { claimed, missing } = await p.claim("u1", hashes, at(1), "f/r1");
    assert.equal(claimed.length, 120);
    assert.deepEqual(missing, []);
    assert.deepEqual(await orphans(p, T0 + 10), []);
    assert.equal((await p.release("u1", hashes, at(2), "f/r1")).unclaimed.length, 120);
  });

  test("two processes at once: the quota holds and a blob counts once", async (p, q) => {
    const ports = [p, q];
    // Ten different blobs of 300 bytes at once, five from each process: three fit.
    const hashes = Array.from({ length: 10 }, (_, i) => i.toString(16).padStart(64, "0"));
    const results = await Promise.allSettled(
      hashes.map((hash, i) => upload(ports[i % 2], "u1", hash, 300, i)),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 3);
    for (const r of results) {
      if (r.status === "rejected") assert.ok(r.reason instanceof QuotaExceededError);
    }
    assert.deepEqual(await q.usage("u1"), { bytes: 900, count: 3 });
    // One new blob uploaded by both at once: created once, counted once.
    const same = await Promise.all([upload(p, "u2", H("a"), 10), upload(q, "u2", H("a"), 10)]);
    assert.deepEqual(same.map((r) => r.created).sort(), [false, true]);
    assert.deepEqual(await p.usage("u2"), { bytes: 10, count: 1 });
    assert.deepEqual(await q.totalUsage(), { bytes: 910, count: 4 });
  });

  test("two processes claiming and releasing at once: every claimant counts once", async (p, q) => {
    const hashes = ["a", "b", "c"].map(H);
    for (const hash of hashes) await upload(p, "u1", hash, 10);
    await Promise.all([
      p.claim("u1", hashes, at(1_000), "f/r1"),
      q.claim("u1", [...hashes].reverse(), at(1_000), "f/r1"),
      q.claim("u1", hashes, at(1_000), "f/r2"),
    ]);
    for (const hash of hashes) assert.equal((await p.get({ userId: "u1", hash }))?.claims, 2);
    const released = await Promise.all([
      p.release("u1", hashes, at(2_000), "f/r1"),
      q.release("u1", [...hashes].reverse(), at(2_000), "f/r2"),
      q.release("u1", hashes, at(2_000), "f/r1"),
    ]);
    const unclaimed = released.flatMap((r) => r.unclaimed).sort();
    assert.deepEqual(unclaimed, hashes, "each blob became unclaimed exactly once");
    for (const hash of hashes) assert.equal((await q.get({ userId: "u1", hash }))?.claims, 0);
  });

  test("two processes at once: an orphan is forgotten once, or claimed and kept", async (p, q) => {
    for (let round = 0; round < 5; round++) {
      const hash = round.toString(16).padStart(64, "0");
      await upload(p, "u1", hash, 10);
      const [candidate] = (await orphans(q, T0)).filter((c) => c.hash === hash);
      const [one, two, claim] = await Promise.all([
        p.forgetOrphan(candidate, T0),
        q.forgetOrphan(candidate, T0),
        q.claim("u1", [hash], at(1), "f/r1"),
      ]);
      const forgotten = [one, two].filter((row) => row !== null).length;
      if (claim.claimed.length === 1) {
        assert.equal(forgotten, 0, "a claimed blob is no orphan");
        assert.equal((await p.get({ userId: "u1", hash }))?.claims, 1);
      } else {
        assert.equal(forgotten, 1, "forgotten once");
        assert.deepEqual(claim.missing, [hash]);
        assert.equal(await p.get({ userId: "u1", hash }), null);
      }
    }
    const kept = (await Promise.all(
      Array.from(
        { length: 5 },
        (_, i) => p.get({ userId: "u1", hash: i.toString(16).padStart(64, "0") }),
      ),
    )).filter((row) => row !== null).length;
    assert.deepEqual(await q.usage("u1"), { bytes: 10 * kept, count: kept });
  });
}
