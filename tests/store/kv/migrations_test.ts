import assert from "node:assert/strict";
import { blobKeys, keys, vaultKeys, webhookKeys } from "../../../src/store/kv/keys.ts";
import type { BlobMeta } from "../../../src/store/ports/blob_meta.ts";
import { decodeHead, type QueueRow } from "../../../src/store/kv/envelope_rows.ts";
import type { SubmissionHead } from "../../../src/store/ports/envelopes.ts";
import { COMPACT_BATCH } from "../../../src/store/kv/migrations.ts";
import { migrateStore, SCHEMA_VERSION } from "../../../src/store/kv/schema.ts";
import { webhookKvPorts } from "../../../src/store/kv/webhook_ports.ts";
import { QueueDispatcher } from "../../../src/store/kv/queue.ts";
import { ATTEMPTS, V0, writeV0Fixture } from "../_v0_fixture.ts";
import { KvEnvelopes } from "../../../src/store/kv/envelopes.ts";
import { SegmentLog } from "../../../src/store/kv/segments.ts";

/** The data dir the migrations see (migration 4 writes segment files into it). */
const FIXTURE_DIR = await Deno.makeTempDir({ prefix: "sealpost-migrations-" });
globalThis.addEventListener("unload", () => Deno.removeSync(FIXTURE_DIR, { recursive: true }));

Deno.test("migrations 1 to 3: a version-0 store is rewritten into the current layout", async () => {
  using kv = await Deno.openKv(":memory:");
  await writeV0Fixture(kv);
  const result = await migrateStore(kv, FIXTURE_DIR);
  assert.equal(result.from, 0);
  assert.equal(result.to, SCHEMA_VERSION);
  assert.equal((await kv.get(keys.schemaVersion())).value, SCHEMA_VERSION);

  // The inline body moved to the ref; the row has no body field left.
  const inlineRow = (await kv.get<Record<string, unknown>>(
    webhookKeys.delivery(V0.webhookId, V0.inlineId),
  )).value!;
  assert.equal("body" in inlineRow, false);
  assert.deepEqual((await kv.get(webhookKeys.deliveryWebhook(V0.inlineId))).value, {
    webhookId: V0.webhookId,
    body: V0.inlineBody,
  });
  // A bare ref of a body in parts became an object; the parts stay.
  assert.deepEqual((await kv.get(webhookKeys.deliveryWebhook(V0.partsId))).value, {
    webhookId: V0.webhookId,
    body: null,
  });
  // The configuration has an explicit concurrency; the submission head no pending list.
  const config = (await kv.get<Record<string, unknown>>(
    webhookKeys.config(V0.formId, V0.webhookId),
  )).value!;
  assert.equal(config.concurrency, null);
  assert.equal(config.name, "old");
  // Migration 5: the head under its compact key, in bytes (the old key gone).
  const stored = (await kv.get<Uint8Array>(keys.submission(V0.submissionId))).value!;
  const head = decodeHead(V0.submissionId, stored);
  assert.equal("pending" in head, false);
  assert.equal(head.version, 1);
  assert.equal(head.digest, "cd".repeat(32));
  assert.equal((await kv.get(["submissions", V0.submissionId])).value, null);

  // The current code reads every migrated entry.
  const { webhooks, deliveries } = webhookKvPorts(kv, new QueueDispatcher(kv));
  const inline = await deliveries.delivery(V0.inlineId);
  assert.ok(inline);
  assert.deepEqual(await deliveries.body(inline.row), V0.inlineBody);
  const parts = await deliveries.delivery(V0.partsId);
  assert.ok(parts);
  assert.equal(
    new TextDecoder().decode(await deliveries.body(parts.row)),
    V0.partBodies.map((p) => new TextDecoder().decode(p)).join(""),
  );
  assert.equal((await webhooks.config(V0.webhookId))?.concurrency, null);
  // Migration 3: the attempt log left the rows; each attempt is read on its own.
  assert.equal("log" in inlineRow, false);
  for (const id of [V0.inlineId, V0.partsId]) {
    assert.deepEqual(await deliveries.attempts(id), ATTEMPTS);
    assert.equal((await deliveries.delivery(id))?.row.attempts, ATTEMPTS.length);
  }
});

Deno.test("migration 3: a version-2 store's attempt logs become attempt rows", async () => {
  using kv = await Deno.openKv(":memory:");
  await writeV0Fixture(kv);
  await migrateStore(kv, FIXTURE_DIR);
  // Back to version 2: the migrated layout, with the log inside the row again.
  const key = webhookKeys.delivery(V0.webhookId, V0.inlineId);
  const row = (await kv.get<Record<string, unknown>>(key)).value!;
  const op = kv.atomic().set(key, { ...row, log: ATTEMPTS }).set(keys.schemaVersion(), 2);
  for (const attempt of ATTEMPTS) op.delete(webhookKeys.attempt(V0.inlineId, attempt.n));
  await op.commit();
  const { webhooks, deliveries } = webhookKvPorts(kv, new QueueDispatcher(kv));
  assert.deepEqual(await deliveries.attempts(V0.inlineId), []);

  const result = await migrateStore(kv, FIXTURE_DIR);
  assert.deepEqual([result.from, result.to], [2, SCHEMA_VERSION]);
  assert.deepEqual((await kv.get(key)).value, row);
  assert.deepEqual(await deliveries.attempts(V0.inlineId), ATTEMPTS);
  // A removed configuration's purge takes the attempt rows with the delivery.
  await webhooks.removeConfig((await webhooks.config(V0.webhookId))!);
  assert.deepEqual(await deliveries.attempts(V0.inlineId), []);
  assert.equal(await deliveries.delivery(V0.inlineId), null);
});

Deno.test("migrations: running them again changes nothing", async () => {
  using kv = await Deno.openKv(":memory:");
  await writeV0Fixture(kv);
  await migrateStore(kv, FIXTURE_DIR);
  const before = await Array.fromAsync(kv.list({ prefix: [] }));
  await kv.delete(keys.schemaVersion());
  await migrateStore(kv, FIXTURE_DIR);
  const after = await Array.fromAsync(kv.list({ prefix: [] }));
  assert.deepEqual(after.map((e) => [e.key, e.value]), before.map((e) => [e.key, e.value]));
});

Deno.test("migration 2: blob rows of version 1 get claim counts (claimed ones one owner claim), forms an explicit retention", async () => {
  using kv = await Deno.openKv(":memory:");
  const row = (hash: string, claimedAt: string | null) => ({
    userId: "u1",
    hash,
    mime: null,
    sizeBytes: 3,
    uploadedAt: "2026-11-01T00:00:00.000Z",
    claimedAt,
  });
  await kv.set(
    blobKeys.meta("u1", "a".repeat(64)),
    row("a".repeat(64), "2026-11-02T00:00:00.000Z"),
  );
  await kv.set(blobKeys.meta("u1", "b".repeat(64)), row("b".repeat(64), null));
  await kv.set(vaultKeys.form("f1"), { formId: "f1", userId: "u1", schemaVersion: 1 });
  await kv.set(keys.schemaVersion(), 1);
  const result = await migrateStore(kv, FIXTURE_DIR);
  assert.equal(result.from, 1);
  // A form row from before retention gets an explicit "kept".
  const form = (await kv.get<Record<string, unknown>>(vaultKeys.form("f1"))).value!;
  assert.equal(form.retentionDays, null);
  const claimed = (await kv.get<BlobMeta>(blobKeys.meta("u1", "a".repeat(64)))).value!;
  assert.equal(claimed.claims, 1);
  assert.equal((await kv.get(blobKeys.claim("u1", "a".repeat(64), "owner"))).value, true);
  const unclaimed = (await kv.get<BlobMeta>(blobKeys.meta("u1", "b".repeat(64)))).value!;
  assert.equal(unclaimed.claims, 0);
  assert.equal((await kv.get(blobKeys.claim("u1", "b".repeat(64), "owner"))).value, null);
});

Deno.test("migration 4: queued ciphertexts, inline or in chunks, move to segment files; staged chunks go", async () => {
  using kv = await Deno.openKv(":memory:");
  const dataDir = await Deno.makeTempDir({ prefix: "sealpost-migration-4-" });
  const fp = "f".repeat(64);
  const small = Uint8Array.from({ length: 100 }, (_, i) => i);
  const large = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7) & 0xff);
  const row = (id: string) => ({
    submissionId: id,
    version: 1,
    formId: "contact",
    recipientPubkey: "k",
    submitterId: null,
    receivedAt: "2026-11-01T00:00:00.000Z",
  });
  const op = kv.atomic()
    .set(["queue", fp, 1], { ...row("a"), bytes: 100, ciphertext: small })
    .set(["queue", fp, 2], { ...row("b"), bytes: large.length, blobId: "big", chunks: 2 })
    .set(["chunks", "big", 0], large.subarray(0, 61440))
    .set(["chunks", "big", 1], large.subarray(61440))
    .set(["staging", "lost"], { chunks: 1, at: 0 })
    .set(["chunks", "lost", 0], new Uint8Array(10))
    .set(keys.schemaVersion(), 3);
  await op.commit();
  const result = await migrateStore(kv, dataDir);
  assert.deepEqual([result.from, result.to], [3, SCHEMA_VERSION]);
  const envelopes = new KvEnvelopes(kv, await SegmentLog.open(`${dataDir}/segments`));
  try {
    const { items } = await envelopes.listQueue(fp, 0, 10);
    assert.deepEqual(items.map((i) => i.ciphertext), [small, large]);
    assert.deepEqual(await Array.fromAsync(kv.list({ prefix: ["chunks"] })), []);
    assert.deepEqual(await Array.fromAsync(kv.list({ prefix: ["staging"] })), []);
    const queued = await Array.fromAsync(kv.list({ prefix: ["queue"] }));
    assert.equal(queued.length, 2);
    assert.ok(queued.every((e) => e.value instanceof Uint8Array), "compact rows (migration 5)");
  } finally {
    await envelopes.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

/** A version-4 store: heads and queue rows as V8 objects, ciphertexts in segment files. */
async function writeV4Store(kv: Deno.Kv, dataDir: string) {
  const fp = "e".repeat(64);
  const pk = "X".repeat(43) + "=";
  const segments = await SegmentLog.open(`${dataDir}/segments`);
  const heads: SubmissionHead[] = [];
  const queued: { fp: string; seq: number; row: QueueRow; ciphertext: Uint8Array }[] = [];
  const op = () => kv.atomic();
  let w = op();
  for (let i = 0; i < 250; i++) {
    // Hex ids, but one not; an amended head; a recipient key written without padding; a sender
    // id; a time not in toISOString()'s form; a second queue whose fingerprint is not hex.
    const id = i === 7 ? "not-a-hex-id" : i.toString(16).padStart(32, "0");
    const amended = i === 3;
    const queue = i % 50 === 49 ? "legacy-queue" : fp;
    heads.push({
      id,
      formId: "contact",
      fingerprint: queue,
      createdAt: new Date(Date.UTC(2026, 10, 1, 0, 0, i)).toISOString(),
      version: amended ? 2 : 1,
      digest: (i + 1).toString(16).padStart(64, "d"),
      latestDigest: (amended ? i + 2 : i + 1).toString(16).padStart(64, "d"),
    });
    const ciphertext = Uint8Array.from({ length: 48 + i }, (_, j) => (i * 31 + j) & 0xff);
    const ref = segments.append(ciphertext);
    const row: QueueRow = {
      submissionId: id,
      version: amended ? 2 : 1,
      formId: "contact",
      recipientPubkey: i === 11 ? pk.slice(0, -1) : pk,
      submitterId: i % 10 === 0 ? `sender-${i}` : null,
      receivedAt: i === 12 ? "2026-11-01T00:00:12Z" : heads[i].createdAt,
      ref,
    };
    queued.push({ fp: queue, seq: 1000 + i, row, ciphertext });
    w.set(["submissions", id], heads[i]).set(["queue", queue, 1000 + i], row);
    if (i % 50 === 49) {
      await segments.flush();
      await w.commit();
      w = op();
    }
    segments.settle(ref);
  }
  await kv.set(keys.schemaVersion(), 4);
  await segments.close();
  return { heads, queued, fps: [fp, "legacy-queue"] };
}

/** What the envelope port answers about every head and queue of the store. */
async function answers(
  kv: Deno.Kv,
  dataDir: string,
  fixture: Awaited<ReturnType<typeof writeV4Store>>,
) {
  const port = new KvEnvelopes(kv, await SegmentLog.open(`${dataDir}/segments`));
  try {
    const heads = await Promise.all(fixture.heads.map((h) => port.getSubmission(h.id)));
    const queues = [];
    for (const fp of fixture.fps) {
      queues.push({
        items: (await port.listQueue(fp, 0, 1000)).items,
        stats: await port.queueStats(fp, 1000),
      });
    }
    return { heads, queues };
  } finally {
    await port.close();
  }
}

/** What a version-4 store's reader answered: its rows as they were, with their bytes. */
function expected(fixture: Awaited<ReturnType<typeof writeV4Store>>) {
  return {
    heads: fixture.heads,
    queues: fixture.fps.map((fp) => {
      const items = fixture.queued.filter((q) => q.fp === fp).map((q) => {
        const { ref: _, ...header } = q.row;
        return { seq: q.seq, ...header, ciphertext: q.ciphertext };
      });
      return { items, stats: { depth: items.length, oldestReceivedAt: items[0].receivedAt } };
    }),
  };
}

Deno.test("migration 5: a version-4 store's heads and queue rows become compact; the port answers the same", async () => {
  using kv = await Deno.openKv(":memory:");
  const dataDir = await Deno.makeTempDir({ prefix: "sealpost-migration-5-" });
  try {
    const fixture = await writeV4Store(kv, dataDir);
    const result = await migrateStore(kv, dataDir);
    assert.deepEqual([result.from, result.to], [4, SCHEMA_VERSION]);
    assert.deepEqual(await answers(kv, dataDir, fixture), expected(fixture));
    for (const prefix of [["submissions"], ["queue"]]) {
      const rows = await Array.fromAsync(kv.list({ prefix }));
      assert.equal(rows.length, 250, `${prefix}: each row once, the old keys gone`);
      // At most: a head with two digests (32 bytes each), the form id, fingerprint and times.
      assert.ok(rows.every((e) => e.value instanceof Uint8Array && e.value.length <= 120));
    }
    // The hex fingerprint's queue is keyed by its bytes; the queue's key is stored once.
    assert.equal((await kv.get(["queue", "e".repeat(64), 1000])).value, null);
    assert.equal((await kv.get(keys.queueKey("e".repeat(64)))).value, "X".repeat(43) + "=");
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

/** `kv`, whose atomic commits throw once `commits` of them went through. */
function cutAfter(kv: Deno.Kv, commits: number): Deno.Kv {
  let left = commits;
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = () => {
            if (left-- <= 0) throw new Error("the process died");
            return commit();
          };
          return op;
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

Deno.test("migration 5: a run cut short leaves version 4 and resumes where it stopped", async () => {
  using kv = await Deno.openKv(":memory:");
  const dataDir = await Deno.makeTempDir({ prefix: "sealpost-migration-5-" });
  try {
    const fixture = await writeV4Store(kv, dataDir);
    // 250 heads in 3 batches, then one batch of queue rows, then the process dies.
    await assert.rejects(migrateStore(cutAfter(kv, 4), dataDir), /the process died/);
    assert.equal((await kv.get(keys.schemaVersion())).value, 4);
    const queue = await Array.fromAsync(kv.list({ prefix: ["queue"] }));
    const compact = queue.filter((e) => e.value instanceof Uint8Array).length;
    assert.deepEqual([compact, queue.length], [COMPACT_BATCH, 250], "one batch moved, atomically");

    const result = await migrateStore(kv, dataDir);
    assert.deepEqual([result.from, result.to], [4, SCHEMA_VERSION]);
    assert.deepEqual(await answers(kv, dataDir, fixture), expected(fixture));
    assert.equal((await Array.fromAsync(kv.list({ prefix: ["queue"] }))).length, 250);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
