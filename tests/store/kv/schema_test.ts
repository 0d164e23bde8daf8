import assert from "node:assert/strict";
import { keys } from "../../../src/store/kv/keys.ts";
import { MIGRATIONS } from "../../../src/store/kv/migrations.ts";
import { migrateStore, type Migration, SCHEMA_VERSION } from "../../../src/store/kv/schema.ts";
import { SchemaVersionError } from "../../../src/store/ports/limits.ts";

/** Migrations that record their runs in `log`; `failAt` makes that step throw once. */
function recording(log: number[], count: number, failAt?: number): Migration[] {
  let failed = false;
  return Array.from({ length: count }, (_, i) => ({
    to: i + 1,
    description: `step ${i + 1}`,
    run: (kv: Deno.Kv) => {
      if (i + 1 === failAt && !failed) {
        failed = true;
        return Promise.reject(new Error(`step ${i + 1} broke`));
      }
      log.push(i + 1);
      return kv.set(["step", i + 1], true).then(() => {});
    },
  }));
}

async function version(kv: Deno.Kv): Promise<unknown> {
  return (await kv.get(keys.schemaVersion())).value;
}

Deno.test("schema: the migrations are numbered 1, 2, … in order and give the current version", () => {
  assert.deepEqual(MIGRATIONS.map((m) => m.to), MIGRATIONS.map((_, i) => i + 1));
  assert.equal(SCHEMA_VERSION, MIGRATIONS.length);
  assert.ok(SCHEMA_VERSION >= 1);
});

Deno.test("schema: an empty store is stamped with the current version, nothing runs", async () => {
  using kv = await Deno.openKv(":memory:");
  const log: number[] = [];
  const result = await migrateStore(kv, "d", recording(log, 3));
  assert.deepEqual({ from: result.from, to: result.to, applied: result.applied }, {
    from: 3,
    to: 3,
    applied: [],
  });
  assert.deepEqual(log, []);
  assert.equal(await version(kv), 3);
});

Deno.test("schema: a non-empty store without a version is version 0 and runs every step in order", async () => {
  using kv = await Deno.openKv(":memory:");
  await kv.set(["users", "u1"], { id: "u1" });
  const log: number[] = [];
  const result = await migrateStore(kv, "d", recording(log, 3));
  assert.equal(result.from, 0);
  assert.equal(result.to, 3);
  assert.deepEqual(result.applied.map((m) => m.description), ["step 1", "step 2", "step 3"]);
  assert.deepEqual(log, [1, 2, 3]);
  assert.equal(await version(kv), 3);
  // Run again: nothing to do.
  assert.deepEqual((await migrateStore(kv, "d", recording(log, 3))).applied, []);
  assert.deepEqual(log, [1, 2, 3]);
});

Deno.test("schema: only the steps a store is behind on run", async () => {
  using kv = await Deno.openKv(":memory:");
  await kv.set(keys.schemaVersion(), 2);
  const log: number[] = [];
  const result = await migrateStore(kv, "d", recording(log, 4));
  assert.equal(result.from, 2);
  assert.deepEqual(log, [3, 4]);
  assert.equal(await version(kv), 4);
});

Deno.test("schema: a run cut short keeps the version of the last finished step and resumes there", async () => {
  using kv = await Deno.openKv(":memory:");
  await kv.set(["users", "u1"], { id: "u1" });
  const log: number[] = [];
  const steps = recording(log, 3, 2);
  await assert.rejects(migrateStore(kv, "d", steps), /step 2 broke/);
  assert.equal(await version(kv), 1);
  const result = await migrateStore(kv, "d", steps);
  assert.equal(result.from, 1);
  assert.deepEqual(log, [1, 2, 3]);
  assert.equal(await version(kv), 3);
});

Deno.test("schema: a newer store is refused with one clear line and left as it is", async () => {
  using kv = await Deno.openKv(":memory:");
  await kv.set(keys.schemaVersion(), 7);
  const log: number[] = [];
  await assert.rejects(migrateStore(kv, "/srv/sealpost", recording(log, 2)), (err) => {
    assert.ok(err instanceof SchemaVersionError);
    assert.equal(
      err.message,
      "The data dir /srv/sealpost has store schema version 7, newer than the 2 this Sealpost " +
        "knows; run the newer Sealpost (or restore a backup made before the upgrade)",
    );
    return true;
  });
  assert.deepEqual(log, []);
  assert.equal(await version(kv), 7);
});

Deno.test("schema: a version that is not a whole number is refused", async () => {
  for (const bad of ["1", -1, 1.5, 2n]) {
    using kv = await Deno.openKv(":memory:");
    await kv.set(keys.schemaVersion(), bad);
    await assert.rejects(
      migrateStore(kv, "d", recording([], 2)),
      (err) => err instanceof SchemaVersionError && /unreadable schema version/.test(err.message),
    );
  }
});
