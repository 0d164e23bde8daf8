import assert from "node:assert/strict";
import { blobKeys, type BlobMetaRow, keys, vaultKeys, webhookKeys } from "../../src/store/keys.ts";
import { migrateStore, SCHEMA_VERSION } from "../../src/store/schema.ts";
import { webhookKvPorts } from "../../src/store/kv/webhook_ports.ts";
import { QueueDispatcher } from "../../src/store/queue.ts";
import { ATTEMPTS, V0, writeV0Fixture } from "./_v0_fixture.ts";
import { listQueue } from "../../src/relay/queue.ts";
import { SegmentLog } from "../../src/store/segments.ts";

/** The data dir the migrations see (migration 4 writes segment files into it). */
const FIXTURE_DIR = await Deno.makeTempDir({ prefix: "sealpost-migrations-" });

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
  const head = (await kv.get<Record<string, unknown>>(keys.submission(V0.submissionId))).value!;
  assert.equal("pending" in head, false);
  assert.equal(head.version, 1);

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
  const claimed = (await kv.get<BlobMetaRow>(blobKeys.meta("u1", "a".repeat(64)))).value!;
  assert.equal(claimed.claims, 1);
  assert.equal((await kv.get(blobKeys.claim("u1", "a".repeat(64), "owner"))).value, true);
  const unclaimed = (await kv.get<BlobMetaRow>(blobKeys.meta("u1", "b".repeat(64)))).value!;
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
  const segments = await SegmentLog.open(`${dataDir}/segments`);
  try {
    const { items } = await listQueue(kv, segments, fp, 0, 10);
    assert.deepEqual(items.map((i) => Uint8Array.fromBase64(i.ciphertext)), [small, large]);
    assert.deepEqual(await Array.fromAsync(kv.list({ prefix: ["chunks"] })), []);
    assert.deepEqual(await Array.fromAsync(kv.list({ prefix: ["staging"] })), []);
    const queued = await Array.fromAsync(kv.list<Record<string, unknown>>({ prefix: ["queue"] }));
    assert.ok(queued.every((e) => !("ciphertext" in e.value) && !("blobId" in e.value)));
  } finally {
    await segments.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
