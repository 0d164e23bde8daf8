import assert from "node:assert/strict";
import { join } from "node:path";
import { Blobs, type BlobSettings, FsBlobStore, UrlSigner } from "../../src/blobs/index.ts";
import { getUsage } from "../../src/blobs/meta.ts";
import { ConfigSchema } from "../../src/config/index.ts";
import { httpError } from "../../src/http/errors.ts";
import { blobKeys, keys } from "../../src/store/keys.ts";
import { random, sha256, streamOf } from "./_helpers.ts";

const BASE = "http://relay.test";
const DAY_MS = 24 * 3600 * 1000;

async function setup(settings: Partial<BlobSettings> = {}) {
  const kv = await Deno.openKv(":memory:");
  await kv.set(keys.user("u1"), { id: "u1", name: "test", createdAt: new Date().toISOString() });
  const root = await Deno.makeTempDir({ prefix: "sealpost-blobs-" });
  const clock = { now: Date.parse("2030-01-01T00:00:00Z") };
  const store = await FsBlobStore.open(root);
  const blobs = new Blobs({
    kv,
    store,
    signer: await UrlSigner.fromRelaySecret(random(32)),
    settings: { ...ConfigSchema.parse({}).blobs, ...settings },
    baseUrl: () => BASE,
    now: () => clock.now,
  });
  /** The query of a fresh slot for `bytes` (plus overrides of the slot request). */
  const slotQuery = async (bytes: Uint8Array, slot: { mime?: string; sizeBytes?: number } = {}) => {
    const { url } = await blobs.uploadSlot(
      { recipientUserId: "u1", hash: sha256(bytes), ...slot },
      BASE,
    );
    return Object.fromEntries(new URL(url).searchParams);
  };
  const put = async (bytes: Uint8Array, slot: { mime?: string; sizeBytes?: number } = {}) =>
    blobs.acceptUpload({ userId: "u1", hash: sha256(bytes) }, await slotQuery(bytes, slot), {
      contentType: slot.mime ?? null,
      contentLength: null,
      body: streamOf(bytes, 4096),
    });
  return {
    kv,
    blobs,
    store,
    clock,
    root,
    slotQuery,
    put,
    close: async () => {
      await blobs.close();
      kv.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

async function code(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (err) {
    const known = httpError(err);
    if (known) return `${known.status} ${known.body.error.code}`;
    throw err;
  }
  return "ok";
}

Deno.test("quota: slot and PUT refuse what does not fit; duplicates cost nothing", async () => {
  const t = await setup({ quota_bytes_per_user: 1000 });
  try {
    const a = random(600);
    const b = random(600);
    assert.equal(await code(t.slotQuery(random(1001), { sizeBytes: 1001 })), "413 quota_exceeded");
    assert.equal((await t.put(a)).created, true);
    assert.deepEqual(await getUsage(t.kv, "u1"), { bytes: 600, count: 1 });
    // Declared in the slot: refused there.
    assert.equal(await code(t.slotQuery(b, { sizeBytes: 600 })), "413 quota_exceeded");
    // Not declared: refused once the bytes are in, and nothing of them stays.
    assert.equal(await code(t.put(b)), "413 quota_exceeded");
    assert.equal(await t.store.size({ userId: "u1", hash: sha256(b) }), null);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(join(t.root, "tmp"))), []);
    // The same bytes again need room like any others (a full quota is no oracle of what is
    // stored): refused alike, on the slot and on the PUT.
    assert.equal(await code(t.slotQuery(a, { sizeBytes: 600 })), "413 quota_exceeded");
    assert.equal(await code(t.put(a)), "413 quota_exceeded");
    assert.deepEqual(await getUsage(t.kv, "u1"), { bytes: 600, count: 1 });
  } finally {
    await t.close();
  }
});

Deno.test("quota: bytes stored already cost nothing more when they fit", async () => {
  const t = await setup({ quota_bytes_per_user: 1300 });
  try {
    const a = random(600);
    assert.equal((await t.put(a)).created, true);
    assert.equal((await t.put(a)).created, false);
    assert.deepEqual(await getUsage(t.kv, "u1"), { bytes: 600, count: 1 });
  } finally {
    await t.close();
  }
});

Deno.test("quota: concurrent uploads never overshoot", async () => {
  const t = await setup({ quota_bytes_per_user: 1000 });
  try {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => code(t.put(random(300)))),
    );
    assert.equal(results.filter((r) => r === "ok").length, 3);
    assert.equal(results.filter((r) => r === "413 quota_exceeded").length, 3);
    assert.deepEqual(await getUsage(t.kv, "u1"), { bytes: 900, count: 3 });
  } finally {
    await t.close();
  }
});

Deno.test("orphans: unclaimed blobs go after the grace period, claimed ones stay", async () => {
  const t = await setup({ orphan_grace_seconds: 7 * 24 * 3600 });
  try {
    const kept = random(100);
    const orphan = random(200);
    const refreshed = random(300);
    await t.put(kept);
    await t.put(orphan);
    await t.put(refreshed);
    assert.deepEqual(
      await t.blobs.claim("u1", [sha256(kept), sha256(kept), "0".repeat(64)], "f1/r1"),
      { claimed: [sha256(kept)], missing: ["0".repeat(64)] },
    );
    assert.deepEqual(await t.blobs.claim("u1", [sha256(kept)], "f1/r1"), {
      claimed: [sha256(kept)],
      missing: [],
    });
    // Another user cannot claim u1's blob.
    assert.deepEqual(await t.blobs.claim("u2", [sha256(orphan)], "f1/r1"), {
      claimed: [],
      missing: [sha256(orphan)],
    });
    t.clock.now += 6 * DAY_MS;
    await t.put(refreshed); // an upload again restarts its grace period
    assert.deepEqual(await t.blobs.sweep(), { deleted: 0, bytes: 0 });
    t.clock.now += DAY_MS + 1000;
    assert.deepEqual(await t.blobs.sweep(), { deleted: 1, bytes: 200 });
    const key = (bytes: Uint8Array) => ({ userId: "u1", hash: sha256(bytes) });
    assert.equal(await t.store.size(key(orphan)), null);
    assert.equal(await t.blobs.readUrl(key(orphan)), null);
    assert.equal(await t.store.size(key(kept)), 100);
    assert.equal(await t.store.size(key(refreshed)), 300);
    assert.deepEqual(await getUsage(t.kv, "u1"), { bytes: 400, count: 2 });
    t.clock.now += 6 * DAY_MS;
    assert.deepEqual(await t.blobs.sweep(), { deleted: 1, bytes: 300 });
    assert.equal(await t.store.size(key(kept)), 100);
    assert.deepEqual(await getUsage(t.kv, "u1"), { bytes: 100, count: 1 });
    const index = await Array.fromAsync(t.kv.list({ prefix: blobKeys.unclaimedAll() }));
    assert.deepEqual(index, []);
    // A swept blob can be uploaded again.
    assert.equal((await t.put(orphan)).created, true);
  } finally {
    await t.close();
  }
});

Deno.test("release: a shared file stays claimed until its last claimant releases it, then is swept", async () => {
  const t = await setup({ orphan_grace_seconds: 3600 });
  try {
    const shared = random(500);
    const own = random(700);
    const hash = sha256(shared);
    await t.put(shared);
    await t.put(own);
    const meta = async () => (await t.kv.get<{ claims: number }>(blobKeys.meta("u1", hash))).value;
    await t.blobs.claim("u1", [hash, sha256(own)], "f1/r1");
    await t.blobs.claim("u1", [hash], "f1/r2");
    await t.blobs.claim("u1", [hash], "f1/r2"); // idempotent: one claimant counts once
    assert.equal((await meta())!.claims, 2);
    t.clock.now += 2 * 3600 * 1000;
    // The first record goes: its own file is unclaimed, the shared one still held by r2.
    assert.deepEqual(await t.blobs.release("u1", [hash, sha256(own)], "f1/r1"), {
      unclaimed: [sha256(own)],
    });
    assert.deepEqual(await t.blobs.release("u1", [hash], "f1/r1"), { unclaimed: [] }, "again");
    assert.equal((await meta())!.claims, 1);
    // Released files get the grace period again (an envelope on its way may still claim).
    assert.deepEqual(await t.blobs.sweep(), { deleted: 0, bytes: 0 });
    t.clock.now += 3600 * 1000 + 1;
    assert.deepEqual(await t.blobs.sweep(), { deleted: 1, bytes: 700 });
    assert.equal(await t.store.size({ userId: "u1", hash: sha256(own) }), null);
    assert.equal(await t.store.size({ userId: "u1", hash }), 500, "still claimed by r2");
    assert.deepEqual(await t.blobs.release("u1", [hash], "f1/r2"), { unclaimed: [hash] });
    t.clock.now += 3600 * 1000 + 1;
    assert.deepEqual(await t.blobs.sweep(), { deleted: 1, bytes: 500 });
    assert.deepEqual(await getUsage(t.kv, "u1"), { bytes: 0, count: 0 });
    const left = await Array.fromAsync(t.kv.list({ prefix: ["blobs"] }));
    assert.deepEqual(left.map((e) => e.key[1]), ["usage"], "no claim rows or index left");
  } finally {
    await t.close();
  }
});

Deno.test("expiry: a URL works until expiresAtUtc and is refused from then on", async () => {
  const t = await setup({ upload_url_lifetime_seconds: 60, read_url_lifetime_seconds: 30 });
  try {
    const bytes = random(50);
    const key = { userId: "u1", hash: sha256(bytes) };
    const query = await t.slotQuery(bytes);
    const upload = () =>
      t.blobs.acceptUpload(key, query, {
        contentType: null,
        contentLength: null,
        body: streamOf(bytes, 10),
      });
    t.clock.now += 59_000;
    assert.equal(await code(upload()), "ok");
    t.clock.now += 1000;
    assert.equal(await code(upload()), "403 url_expired");
    const read = await t.blobs.readUrl(key);
    assert.equal(read!.expiresAtUtc, new Date(t.clock.now + 30_000).toISOString());
    const readQuery = Object.fromEntries(new URL(read!.url).searchParams);
    assert.equal(await code(t.blobs.authorizeRead(key, readQuery)), "ok");
    t.clock.now += 30_000;
    assert.equal(await code(t.blobs.authorizeRead(key, readQuery)), "403 url_expired");
    const long = await t.blobs.readUrl(key, { lifetimeSeconds: 7 * 24 * 3600 });
    assert.ok(long!.url.startsWith(`${BASE}/blobs/u1/${key.hash}?expires=`));
  } finally {
    await t.close();
  }
});
