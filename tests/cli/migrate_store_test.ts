/**
 * `sealpost migrate-store` as an operator runs it (a child process): the target from the
 * configuration, counts on stdout, refusals with exit status 1, usage errors with 2.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { dropBucket, prepareBucket, s3ServerEnv } from "../_support/services/radosgw.ts";
import { sealpost } from "../_support/cli.ts";
import { startInstance } from "../_support/server.ts";
import { radosgw } from "../blobs/_backends.ts";
import { random } from "../blobs/_helpers.ts";
import { upload } from "../blobs/_http.ts";
import { freshPg } from "../store/contract/_pg.ts";

Deno.test("migrate-store: usage errors and a configuration that names no PostgreSQL", async () => {
  const extra = await sealpost(["migrate-store", "now"]);
  assert.equal(extra.code, 2);
  assert.match(extra.stderr, /Unexpected arguments: now/);
  const help = await sealpost(["migrate-store", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: sealpost migrate-store --config FILE/);
  const dir = await Deno.makeTempDir({ prefix: "sealpost-move-cli-kv-" });
  try {
    const kv = await sealpost(["migrate-store", "--data", dir]);
    assert.equal(kv.code, 1);
    assert.match(kv.stderr, /needs store\.backend = "postgres"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("migrate-store: a stopped instance into PostgreSQL and radosgw, then nothing new; refused while serving", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-move-cli-" });
  const secrets = await Deno.makeTempDir({ prefix: "sealpost-move-cli-keys-" });
  const pg = await freshPg();
  const s3 = { ...await radosgw(), bucket: `t-${randomBytes(8).toString("hex")}` };
  await prepareBucket(s3);
  try {
    const inst = await startInstance({}, dir);
    for (const size of [100, 2000]) {
      assert.equal((await upload(inst, random(size), { mime: "image/png" })).put.status, 201);
    }
    const env = {
      ...await s3ServerEnv(s3, secrets),
      SEALPOST_STORE_BACKEND: "postgres",
      SEALPOST_POSTGRES_URL: `${pg.url}?search_path=${pg.schema}`,
    };
    const busy = await sealpost(["migrate-store", "--data", dir], env);
    assert.equal(busy.code, 1);
    assert.match(busy.stderr, /in use by another sealpost serve/);
    await inst.server.shutdown();

    const first = await sealpost(["migrate-store", "--data", dir, "--json"], env);
    assert.equal(first.code, 0, first.stderr);
    const report = JSON.parse(first.stdout);
    assert.equal(report.rows["instance.settings"], 2);
    assert.ok(report.rows["relayMeta.users"] >= 1);
    assert.deepEqual(report.blobs, { copied: 2, present: 0, bytes: 2100, missing: [] });
    // Progress lines go to stderr with --json; never the database password.
    assert.match(first.stderr, new RegExp(`Copying ${dir} into PostgreSQL at 127\\.0\\.0\\.1:`));
    assert.ok(!first.stderr.includes(new URL(pg.url).password));

    const again = await sealpost(["migrate-store", "--data", dir], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /blobs: 0 copied \(0 bytes\), 2 already in the bucket/);
    assert.match(again.stdout, /^instance: 0 settings /m);
  } finally {
    await dropBucket(s3);
    await pg.close();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(secrets, { recursive: true });
  }
});

Deno.test("migrate-store: an unreachable database is one line naming where, never the password", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-move-cli-down-" });
  try {
    await (await startInstance({}, dir)).server.shutdown();
    const out = await sealpost(["migrate-store", "--data", dir], {
      SEALPOST_STORE_BACKEND: "postgres",
      SEALPOST_POSTGRES_URL: "postgres://sealpost:hunter2@127.0.0.1:1/sealpost",
    });
    assert.equal(out.code, 1);
    assert.match(out.stderr, /PostgreSQL at 127\.0\.0\.1:1\/sealpost failed: .*ECONNREFUSED/);
    assert.ok(!out.stderr.includes("hunter2"));
    assert.ok(await Deno.stat(join(dir, "sealpost.kv")));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
