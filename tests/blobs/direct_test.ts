/**
 * The blob service over a direct store (a real radosgw): how uploads it never sees are
 * recorded, the quota they meet, the type they are served with, and the two sweeps, on a
 * clock the test moves.
 */
import assert from "node:assert/strict";
import { Blobs, UrlSigner } from "../../src/blobs/index.ts";
import { getBlobMeta, getUsage } from "../../src/blobs/meta.ts";
import { S3BlobStore } from "../../src/blobs/s3_store.ts";
import { ConfigSchema } from "../../src/config/index.ts";
import { keys } from "../../src/store/keys.ts";
import { dropBucket, prepareBucket } from "../_support/services/radosgw.ts";
import { radosgw } from "./_backends.ts";
import { random, sha256 } from "./_helpers.ts";

const HOUR_MS = 3600 * 1000;

async function setup(quotaBytes = 10_000) {
  const s3 = { ...await radosgw(), bucket: `t-direct-${crypto.randomUUID().slice(0, 8)}` };
  await prepareBucket(s3);
  const kv = await Deno.openKv(":memory:");
  await kv.set(keys.user("u1"), { id: "u1", name: "test", createdAt: new Date().toISOString() });
  const defaults = ConfigSchema.parse({}).blobs;
  const settings = {
    ...defaults,
    quota_bytes_per_user: quotaBytes,
    orphan_grace_seconds: 3600,
    backend: "s3" as const,
    s3: { ...defaults.s3, endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region },
  };
  const clock = { now: Date.now() };
  const store = new S3BlobStore(settings.s3, s3);
  const blobs = new Blobs({
    kv,
    store,
    signer: await UrlSigner.fromRelaySecret(random(32)),
    settings,
    baseUrl: () => "http://relay.test",
    now: () => clock.now,
  });
  /** Uploads `bytes` the way a sender does: slot, then PUT to the store. */
  const send = async (bytes: Uint8Array<ArrayBuffer>, mime?: string, contentType = mime) => {
    const hash = sha256(bytes);
    const slot = await blobs.uploadSlot({ recipientUserId: "u1", hash, mime }, "http://relay.test");
    const headers: Record<string, string> = { "x-amz-content-sha256": hash };
    if (contentType) headers["content-type"] = contentType;
    const res = await fetch(slot.url, { method: "PUT", body: bytes, headers });
    await res.body?.cancel();
    assert.equal(res.status, 200);
    return { userId: "u1", hash };
  };
  return {
    kv,
    blobs,
    store,
    clock,
    send,
    close: async () => {
      await blobs.close();
      kv.close();
      await dropBucket(s3);
    },
  };
}

Deno.test("[s3] an upload is recorded when first read or claimed, with its size and type", async () => {
  const t = await setup();
  try {
    const png = await t.send(random(700), "image/png");
    assert.equal(await getBlobMeta(t.kv, png), null, "the relay saw no upload");
    const read = await t.blobs.readUrl(png);
    assert.ok(read);
    const meta = await getBlobMeta(t.kv, png);
    assert.equal(meta?.sizeBytes, 700);
    assert.equal(meta?.mime, "image/png");
    assert.deepEqual(await getUsage(t.kv, "u1"), { bytes: 700, count: 1 });
    // No mime declared: the type the sender sent is kept (it could have declared it), and a
    // type that is not an image downloads.
    const page = await t.send(random(50), undefined, "text/html");
    const served = await fetch((await t.blobs.readUrl(page))!.url);
    await served.body?.cancel();
    assert.equal(served.headers.get("content-type"), "text/html");
    assert.equal(served.headers.get("content-disposition"), `attachment; filename="${page.hash}"`);
    // Nothing declared, nothing sent: the store's default type, recorded as none.
    const bare = await t.send(random(60));
    assert.deepEqual(await t.blobs.claim("u1", [bare.hash], "f/r1"), {
      claimed: [bare.hash],
      missing: [],
    });
    assert.equal((await getBlobMeta(t.kv, bare))?.mime, null);
  } finally {
    await t.close();
  }
});

Deno.test("[s3] an object past the quota is not recorded; the sweep deletes it after the grace", async () => {
  const t = await setup(1000);
  try {
    const fits = await t.send(random(800));
    const over = await t.send(random(300));
    // One claim at a time: the objects of one claim are recorded concurrently, in no order.
    assert.deepEqual(await t.blobs.claim("u1", [fits.hash], "f/r1"), {
      claimed: [fits.hash],
      missing: [],
    });
    assert.deepEqual(await t.blobs.claim("u1", [over.hash], "f/r1"), {
      claimed: [],
      missing: [over.hash],
    });
    assert.deepEqual(await getUsage(t.kv, "u1"), { bytes: 800, count: 1 });
    // Within the grace period the unrecorded object stays (a claim may still come)…
    assert.deepEqual(await t.blobs.sweep(), { deleted: 0, bytes: 0 });
    assert.ok(await t.store.stat(over));
    // …after it, the listing sweep deletes it; the claimed blob stays.
    t.clock.now += 2 * HOUR_MS;
    assert.deepEqual(await t.blobs.sweep(), { deleted: 1, bytes: 300 });
    assert.equal(await t.store.stat(over), null);
    assert.ok(await t.store.stat(fits));
  } finally {
    await t.close();
  }
});

Deno.test("[s3] a recorded blob released by its last claimant goes with the orphan sweep", async () => {
  const t = await setup();
  try {
    const file = await t.send(random(400));
    await t.blobs.claim("u1", [file.hash], "f/r1");
    assert.deepEqual(await t.blobs.release("u1", [file.hash], "f/r1"), { unclaimed: [file.hash] });
    t.clock.now += 2 * HOUR_MS;
    assert.deepEqual(await t.blobs.sweep(), { deleted: 1, bytes: 400 });
    assert.equal(await t.store.stat(file), null);
    assert.equal(await getBlobMeta(t.kv, file), null);
    assert.deepEqual(await getUsage(t.kv, "u1"), { bytes: 0, count: 0 });
  } finally {
    await t.close();
  }
});
