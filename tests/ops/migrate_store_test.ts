/**
 * `moveStore` (src/ops/migrate_store.ts): a stopped KV/fs instance into PostgreSQL and a
 * radosgw bucket; refused while the instance serves; run again, it copies nothing new; after
 * an interruption, it finishes the copy; then `serve` on PostgreSQL has its records, tokens and
 * files.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { blobPathParts } from "../../src/blobs/index.ts";
import { readS3Credentials, S3BlobStore } from "../../src/blobs/s3_store.ts";
import { DataDirError } from "../../src/store/data_dir.ts";
import { moveStore, MoveStoreError } from "../../src/ops/migrate_store.ts";
import { PgBlobMeta } from "../../src/store/pg/blob_meta.ts";
import { PgIdentity } from "../../src/store/pg/identity.ts";
import { dropBucket, prepareBucket, s3ServerEnv } from "../_support/services/radosgw.ts";
import { fetchManifest, submitForm } from "../../src/sdk/mod.ts";
import { call, startInstance, type TestInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";
import { startReceiver } from "../webhooks/_harness.ts";
import { radosgw } from "../blobs/_backends.ts";
import { random, sha256 } from "../blobs/_helpers.ts";
import { upload } from "../blobs/_http.ts";
import { freshPg } from "../store/contract/_pg.ts";

/** A bucket of its own on the test radosgw, and the store over it. */
async function freshBucket() {
  const s3 = { ...await radosgw(), bucket: `t-${randomBytes(8).toString("hex")}` };
  await prepareBucket(s3);
  Deno.env.set("AWS_ACCESS_KEY_ID", s3.accessKeyId);
  Deno.env.set("AWS_SECRET_ACCESS_KEY", s3.secretAccessKey);
  const settings = {
    endpoint: s3.endpoint,
    region: s3.region,
    bucket: s3.bucket,
    access_key_id_file: "",
    access_key_id_env: "AWS_ACCESS_KEY_ID",
    secret_access_key_file: "",
    secret_access_key_env: "AWS_SECRET_ACCESS_KEY",
  };
  return {
    s3,
    store: new S3BlobStore(settings, await readS3Credentials(settings)),
    close: () => dropBucket(s3),
  };
}

/** The bytes and type the bucket serves for `key`. */
async function fetchObject(store: S3BlobStore, key: { userId: string; hash: string }) {
  const now = Math.floor(Date.now() / 1000);
  const url = await store.presignGet(key, {
    contentType: "application/octet-stream",
    contentDisposition: "attachment",
  }, { now, expires: now + 60 });
  const res = await fetch(url);
  return new Uint8Array(await res.arrayBuffer());
}

Deno.test("migrate-store: an instance into PostgreSQL and a bucket, then served from there; refused while serving, idempotent, resumable", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-move-" });
  const pg = await freshPg();
  const bucket = await freshBucket();
  let inst: TestInstance | null = await startInstance({}, dir);
  try {
    const files = [
      { bytes: random(3000), mime: "image/png" },
      { bytes: random(70_000), mime: "application/pdf" },
      { bytes: random(10), mime: undefined },
      { bytes: random(500), mime: "text/plain" },
    ];
    for (const file of files) {
      const { put } = await upload(inst, file.bytes, { mime: file.mime });
      assert.equal(put.status, 201);
    }
    // A form with records, their submissions and a webhook that delivered them.
    const receiver = startReceiver(() => new Response(null, { status: 204 }));
    const { form, pin } = await vaultForm(inst, "Move", [
      { id: "name", label: "Name", kind: "text", required: true },
    ]);
    const hook = await call(`${inst.url}/owner/forms/${form.formId}/webhooks`, {
      method: "POST",
      token: inst.credentials.ownerToken,
      json: { url: receiver.url },
    });
    assert.equal(hook.status, 201);
    const manifest = await fetchManifest(form.formId, { relayUrl: inst.url, pin });
    for (const name of ["Ada", "Grace", "Edsger"]) await submitForm(manifest, { name });
    await receiver.waitFor(3);
    await receiver.close();
    const userId = inst.credentials.userId;
    const keyOf = (bytes: Uint8Array) => ({ userId, hash: sha256(bytes) });
    // One blob's bytes are gone from the disk: reported, not copied.
    const gone = keyOf(files[3].bytes);
    await Deno.remove(join(dir, "blobs", ...blobPathParts(gone)));
    const target = {
      dataDir: dir,
      postgresUrl: `${pg.url}?search_path=${pg.schema}`,
      blobStore: bucket.store,
    };

    await assert.rejects(moveStore(target), DataDirError, "refused while the instance serves");
    await inst.server.shutdown();
    inst = null;

    const lines: string[] = [];
    const first = await moveStore({ ...target, log: (line) => lines.push(line) });
    assert.deepEqual(first.blobs, {
      copied: 3,
      present: 0,
      bytes: 73_010,
      missing: [`${gone.userId}/${gone.hash}`],
    });
    assert.ok(lines.some((l) => l.startsWith("blobs: 3 copied (73010 bytes)")), lines.join("\n"));
    // The relay secret and the first user: serve on the database joins, never re-initialises.
    assert.equal(first.rows["instance.settings"], 2);
    const settings = await pg.sql<{ name: string; value: string }[]>`
      select name, value from sealpost_settings order by name`;
    assert.deepEqual(settings.map((r) => [r.name, r.value]), [
      ["first_user_id", userId],
      ["relay_secret", (await Deno.readTextFile(join(dir, "relay.secret"))).trim()],
    ]);
    for (const file of files.slice(0, 3)) {
      const key = keyOf(file.bytes);
      assert.deepEqual(await fetchObject(bucket.store, key), file.bytes);
      const stored = await bucket.store.stat(key);
      assert.equal(stored?.contentType, file.mime ?? "binary/octet-stream");
    }

    // Every area copied its rows.
    for (
      const [name, n] of Object.entries({
        "envelopes.submissions": 3,
        "vault.forms": 1,
        "vault.records": 3,
        "webhooks.configs": 1,
        "webhooks.deliveries": 3,
      })
    ) assert.equal(first.rows[name], n, `${name}: ${JSON.stringify(first.rows)}`);
    // The relay's metadata reads back through the PostgreSQL ports.
    assert.ok(first.rows["relayMeta.users"] >= 1, JSON.stringify(first.rows));
    assert.equal((await new PgIdentity(pg.sql).getUser(userId))?.id, userId);
    const meta = await new PgBlobMeta(pg.sql).get(keyOf(files[1].bytes));
    assert.equal(meta?.mime, "application/pdf");
    assert.equal(meta?.sizeBytes, 70_000);

    // Again: nothing new to copy.
    const again = await moveStore(target);
    assert.equal(again.rows["relayMeta.users"], 0);
    assert.equal(again.rows["instance.settings"], 0);
    assert.equal(again.rows["vault.records"], 0);
    assert.equal(again.blobs?.copied, 0);
    assert.equal(again.blobs?.present, 3);

    // Interrupted half way (an object lost): the next run copies just that one.
    await bucket.store.remove(keyOf(files[1].bytes));
    const resumed = await moveStore(target);
    assert.equal(resumed.blobs?.copied, 1);
    assert.equal(resumed.blobs?.present, 2);
    assert.equal(resumed.blobs?.bytes, 70_000);

    // Served on PostgreSQL and the bucket, the instance has its records, tokens and files.
    const secrets = await Deno.makeTempDir({ prefix: "sealpost-move-keys-" });
    const moved = await startInstance({
      SEALPOST_STORE_BACKEND: "postgres",
      SEALPOST_POSTGRES_URL: target.postgresUrl,
      ...await s3ServerEnv(bucket.s3, secrets),
    }, dir);
    try {
      const token = moved.credentials.ownerToken;
      const records = await call(`${moved.url}/vault/forms/${form.formId}/records`, { token });
      assert.equal(records.status, 200);
      assert.deepEqual(
        records.body.items.map((r: { values: { name: string } }) => r.values.name).sort(),
        ["Ada", "Edsger", "Grace"],
      );
      const read = await call(`${moved.url}/submissions/blob/${userId}/${gone.hash}`, { token });
      // Its metadata moved, its bytes could not: the bucket answers its read URL 404.
      const missing = await fetch(read.body.url);
      await missing.body?.cancel();
      assert.equal(missing.status, 404);
      const url =
        (await call(`${moved.url}/submissions/blob/${userId}/${keyOf(files[0].bytes).hash}`, {
          token,
        })).body.url;
      assert.ok(url.startsWith(bucket.s3.endpoint), url);
      assert.deepEqual(new Uint8Array(await (await fetch(url)).arrayBuffer()), files[0].bytes);
    } finally {
      await moved.server.shutdown();
      await Deno.remove(secrets, { recursive: true });
    }
  } finally {
    await inst?.server.shutdown();
    await bucket.close();
    await pg.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("migrate-store: a database another instance initialised is refused, nothing copied", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-move-other-" });
  const pg = await freshPg();
  try {
    await (await startInstance({}, dir)).server.shutdown();
    await pg.sql`insert into sealpost_settings (name, value) values ('first_user_id', 'someone')`;
    const copied: string[] = [];
    await assert.rejects(
      moveStore({
        dataDir: dir,
        postgresUrl: `${pg.url}?search_path=${pg.schema}`,
        blobStore: null,
        steps: [{ name: "probe", copy: () => (copied.push("probe"), Promise.resolve({})) }],
      }),
      MoveStoreError,
      "initialised by another instance",
    );
    assert.deepEqual(copied, []);
  } finally {
    await pg.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("migrate-store: a folder without a store is refused before anything is opened", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-move-empty-" });
  try {
    await assert.rejects(
      moveStore({ dataDir: dir, postgresUrl: "postgres://x@127.0.0.1:1/x", blobStore: null }),
      MoveStoreError,
      "sealpost.kv is missing",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
