import assert from "node:assert/strict";
import { keys } from "../../../src/store/kv/keys.ts";
import {
  BASELINE_VERSION,
  migrateStore,
  type Migration,
  MIGRATIONS,
  SCHEMA_VERSION,
} from "../../../src/store/kv/schema.ts";
import { SchemaVersionError } from "../../../src/store/ports/limits.ts";

/**
 * `count` migrations after the baseline (to versions 2, 3, …) that record their runs in `log`;
 * `failAt` makes the step to that version throw once.
 */
function recording(log: number[], count: number, failAt?: number): Migration[] {
  let failed = false;
  return Array.from({ length: count }, (_, i) => {
    const to = BASELINE_VERSION + i + 1;
    return {
      to,
      description: `step ${to}`,
      run: (kv: Deno.Kv) => {
        if (to === failAt && !failed) {
          failed = true;
          return Promise.reject(new Error(`step ${to} broke`));
        }
        log.push(to);
        return kv.set(["step", to], true).then(() => {});
      },
    };
  });
}

async function version(kv: Deno.Kv): Promise<unknown> {
  return (await kv.get(keys.schemaVersion())).value;
}

/**
 * Asserts that migrating `kv` (data dir `/srv/sealpost`, two migrations) is refused with a
 * {@link SchemaVersionError} saying `message`, no step run and the stored version unchanged.
 */
async function assertRefused(kv: Deno.Kv, message: string): Promise<void> {
  const before = await version(kv);
  const log: number[] = [];
  await assert.rejects(migrateStore(kv, "/srv/sealpost", recording(log, 2)), (err) => {
    assert.ok(err instanceof SchemaVersionError);
    assert.equal(err.message, message);
    return true;
  });
  assert.deepEqual(log, []);
  assert.equal(await version(kv), before);
}

Deno.test("schema: the migrations follow the baseline, numbered 2, 3, … in order, and give the current version", () => {
  assert.equal(BASELINE_VERSION, 1);
  assert.deepEqual(MIGRATIONS.map((m) => m.to), MIGRATIONS.map((_, i) => BASELINE_VERSION + i + 1));
  assert.equal(SCHEMA_VERSION, BASELINE_VERSION + MIGRATIONS.length);
});

Deno.test("schema: without migrations, an empty store is stamped with the baseline", async () => {
  using kv = await Deno.openKv(":memory:");
  const result = await migrateStore(kv, "d", []);
  assert.deepEqual({ from: result.from, to: result.to, applied: result.applied }, {
    from: 1,
    to: 1,
    applied: [],
  });
  assert.equal(await version(kv), 1);
  assert.deepEqual((await migrateStore(kv, "d", [])).applied, []);
});

Deno.test("schema: an empty store is stamped with the current version, nothing runs", async () => {
  using kv = await Deno.openKv(":memory:");
  const log: number[] = [];
  const result = await migrateStore(kv, "d", recording(log, 3));
  assert.deepEqual({ from: result.from, to: result.to, applied: result.applied }, {
    from: 4,
    to: 4,
    applied: [],
  });
  assert.deepEqual(log, []);
  assert.equal(await version(kv), 4);
});

Deno.test("schema: a store at the baseline runs every step in order, then nothing", async () => {
  using kv = await Deno.openKv(":memory:");
  await kv.set(keys.schemaVersion(), BASELINE_VERSION);
  await kv.set(["users", "u1"], { id: "u1" });
  const log: number[] = [];
  const result = await migrateStore(kv, "d", recording(log, 3));
  assert.equal(result.from, 1);
  assert.equal(result.to, 4);
  assert.deepEqual(result.applied.map((m) => m.description), ["step 2", "step 3", "step 4"]);
  assert.deepEqual(log, [2, 3, 4]);
  assert.equal(await version(kv), 4);
  // Run again: nothing to do.
  assert.deepEqual((await migrateStore(kv, "d", recording(log, 3))).applied, []);
  assert.deepEqual(log, [2, 3, 4]);
});

Deno.test("schema: a non-empty store without a version is refused with one clear line and left as it is", async () => {
  using kv = await Deno.openKv(":memory:");
  await kv.set(["users", "u1"], { id: "u1" });
  await assertRefused(
    kv,
    "The data dir /srv/sealpost holds a store without a schema version, which no released " +
      "Sealpost writes; restore a backup of this data dir, or start from an empty one",
  );
  assert.equal(await version(kv), null);
});

Deno.test("schema: only the steps a store is behind on run", async () => {
  using kv = await Deno.openKv(":memory:");
  await kv.set(keys.schemaVersion(), 2);
  const log: number[] = [];
  const result = await migrateStore(kv, "d", recording(log, 4));
  assert.equal(result.from, 2);
  assert.deepEqual(log, [3, 4, 5]);
  assert.equal(await version(kv), 5);
});

Deno.test("schema: a run cut short keeps the version of the last finished step and resumes there", async () => {
  using kv = await Deno.openKv(":memory:");
  await kv.set(keys.schemaVersion(), BASELINE_VERSION);
  const log: number[] = [];
  const steps = recording(log, 3, 3);
  await assert.rejects(migrateStore(kv, "d", steps), /step 3 broke/);
  assert.equal(await version(kv), 2);
  const result = await migrateStore(kv, "d", steps);
  assert.equal(result.from, 2);
  assert.deepEqual(log, [2, 3, 4]);
  assert.equal(await version(kv), 4);
});

Deno.test("schema: a newer store is refused with one clear line and left as it is", async () => {
  using kv = await Deno.openKv(":memory:");
  await kv.set(keys.schemaVersion(), 7);
  await assertRefused(
    kv,
    "The data dir /srv/sealpost has store schema version 7, newer than the 3 this Sealpost " +
      "knows; run the newer Sealpost (or restore a backup made before the upgrade)",
  );
  assert.equal(await version(kv), 7);
});

Deno.test("schema: a version that is not a whole number from the baseline up is refused", async () => {
  for (const bad of ["1", -1, 0, 1.5, 2n]) {
    using kv = await Deno.openKv(":memory:");
    await kv.set(keys.schemaVersion(), bad);
    await assert.rejects(
      migrateStore(kv, "d", recording([], 2)),
      (err) => err instanceof SchemaVersionError && /unreadable schema version/.test(err.message),
    );
  }
});
