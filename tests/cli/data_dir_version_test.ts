/**
 * Data dir versions through the real command line: `init` and `serve` upgrade a store from
 * before schema versions in place, and refuse a store from a newer Sealpost with one line and
 * exit 1.
 */
import assert from "node:assert/strict";
import { keys, webhookKeys } from "../../src/store/kv/keys.ts";
import { openStore } from "../../src/store/kv/file.ts";
import { SCHEMA_VERSION } from "../../src/store/kv/schema.ts";
import { sealpost } from "../_support/cli.ts";
import { spawnServer } from "../_support/process.ts";
import { V0, writeV0Fixture } from "../store/_v0_fixture.ts";

/** A data dir made by `init`, then turned back into a version-0 store with old-layout rows. */
async function v0DataDir(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-v0-" });
  const init = await sealpost(["init", "--data", dir]);
  assert.equal(init.code, 0, init.stderr);
  const kv = await openStore(dir);
  try {
    assert.equal((await kv.get(keys.schemaVersion())).value, SCHEMA_VERSION);
    await kv.delete(keys.schemaVersion());
    await writeV0Fixture(kv);
  } finally {
    kv.close();
  }
  return dir;
}

Deno.test("serve upgrades a version-0 data dir in place and serves it", async () => {
  const dir = await v0DataDir();
  try {
    const server = await spawnServer(dir);
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
    assert.equal((await server.stop()).code, 0);
    const kv = await openStore(dir);
    try {
      assert.equal((await kv.get(keys.schemaVersion())).value, SCHEMA_VERSION);
      assert.deepEqual((await kv.get(webhookKeys.deliveryWebhook(V0.inlineId))).value, {
        webhookId: V0.webhookId,
        body: V0.inlineBody,
      });
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("init says which migrations upgraded the store", async () => {
  const dir = await v0DataDir();
  try {
    const again = await sealpost(["init", "--data", dir]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(
      again.stderr,
      new RegExp(
        `^Upgraded the store of ${dir} from schema version 0 to ${SCHEMA_VERSION}:\n  1: `,
      ),
    );
    assert.match(again.stdout, /^Already initialised:/);
    // Current now: a third run says nothing about versions.
    assert.equal((await sealpost(["init", "--data", dir])).stderr, "");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve and init refuse a data dir from a newer Sealpost with one line, exit 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-newer-" });
  try {
    assert.equal((await sealpost(["init", "--data", dir])).code, 0);
    const kv = await openStore(dir);
    await kv.set(keys.schemaVersion(), SCHEMA_VERSION + 1);
    kv.close();
    const line = `The data dir ${dir} has store schema version ${SCHEMA_VERSION + 1}, newer than ` +
      `the ${SCHEMA_VERSION} this Sealpost knows; run the newer Sealpost (or restore a backup ` +
      "made before the upgrade)\n";
    for (const args of [["serve", "--port", "0"], ["init"]]) {
      const out = await sealpost([...args, "--data", dir]);
      assert.equal(out.code, 1, out.stderr);
      assert.equal(out.stderr, line);
      assert.equal(out.stdout, "");
    }
    const after = await openStore(dir);
    assert.equal((await after.get(keys.schemaVersion())).value, SCHEMA_VERSION + 1);
    after.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
