/**
 * Data dir versions through the real command line: `init` and `serve` refuse a store from a
 * newer Sealpost, and a non-empty store without a version, with one line and exit 1.
 */
import assert from "node:assert/strict";
import { keys } from "../../src/store/kv/keys.ts";
import { openStore } from "../../src/store/kv/file.ts";
import { SCHEMA_VERSION } from "../../src/store/kv/schema.ts";
import { sealpost } from "../_support/cli.ts";

/**
 * Makes a data dir with `init` and changes its store's version with `change`; then `serve` and
 * `init` on it must each print `line(dir)` alone and exit 1, leaving the version as it was.
 */
async function refusedDataDir(
  prefix: string,
  change: (kv: Deno.Kv) => Promise<unknown>,
  line: (dir: string) => string,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix });
  try {
    assert.equal((await sealpost(["init", "--data", dir])).code, 0);
    const kv = await openStore(dir);
    assert.equal((await kv.get(keys.schemaVersion())).value, SCHEMA_VERSION);
    await change(kv);
    const version = (await kv.get(keys.schemaVersion())).value;
    kv.close();
    for (const args of [["serve", "--port", "0"], ["init"]]) {
      const out = await sealpost([...args, "--data", dir]);
      assert.equal(out.code, 1, out.stderr);
      assert.equal(out.stderr, line(dir) + "\n");
      assert.equal(out.stdout, "");
    }
    const after = await openStore(dir);
    assert.equal((await after.get(keys.schemaVersion())).value, version);
    after.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("serve and init refuse a data dir from a newer Sealpost with one line, exit 1", async () => {
  await refusedDataDir(
    "sealpost-newer-",
    (kv) => kv.set(keys.schemaVersion(), SCHEMA_VERSION + 1),
    (dir) =>
      `The data dir ${dir} has store schema version ${SCHEMA_VERSION + 1}, newer than ` +
      `the ${SCHEMA_VERSION} this Sealpost knows; run the newer Sealpost (or restore a backup ` +
      "made before the upgrade)",
  );
});

Deno.test("serve and init refuse a non-empty data dir without a version with one line, exit 1", async () => {
  await refusedDataDir(
    "sealpost-unversioned-",
    (kv) => kv.delete(keys.schemaVersion()),
    (dir) =>
      `The data dir ${dir} holds a store without a schema version, which no released ` +
      "Sealpost writes; restore a backup of this data dir, or start from an empty one",
  );
});
