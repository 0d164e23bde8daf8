import assert from "node:assert/strict";
import { storageFailure, StorageHealth } from "../../src/http/storage_health.ts";

Deno.test("storageFailure: disk full and read-only errors, also as causes; others are not", () => {
  assert.equal(storageFailure(new Error("No space left on device (os error 28)")), "disk full");
  assert.equal(storageFailure(new Error("database or disk is full")), "disk full");
  assert.equal(storageFailure(new Error("Disk quota exceeded (os error 122)")), "disk full");
  assert.equal(
    storageFailure(new Error("Read-only file system (os error 30)")),
    "storage read-only",
  );
  assert.equal(
    storageFailure(new Error("attempt to write a readonly database")),
    "storage read-only",
  );
  assert.equal(
    storageFailure(new Error("commit failed", { cause: new Error("os error 28") })),
    "disk full",
  );
  // PostgreSQL that cannot be used now: npm:postgres's connection errors, the server's codes.
  const coded = (message: string, code: string) => Object.assign(new Error(message), { code });
  for (const code of ["ECONNREFUSED", "CONNECTION_CLOSED", "CONNECT_TIMEOUT", "08006", "57P01"]) {
    assert.equal(storageFailure(coded("down", code)), "database unavailable", code);
  }
  assert.equal(
    storageFailure(new Error("save failed", { cause: coded("write", "CONNECTION_ENDED") })),
    "database unavailable",
  );
  assert.equal(storageFailure(coded("duplicate key", "23505")), null, "a constraint is not");
  assert.equal(storageFailure(new Error("Invalid cursor")), null);
  assert.equal(storageFailure("os error 280"), null);
  assert.equal(storageFailure(undefined), null);
});

Deno.test("StorageHealth: degraded after a failure until a probe write succeeds", async () => {
  const dir = await Deno.makeTempDir();
  let now = 0;
  const health = new StorageHealth(dir, () => now);
  try {
    assert.deepEqual(await health.check(), { ok: true });
    health.failed("disk full");
    // The failure forces a fresh probe, which succeeds here: healthy again.
    assert.deepEqual(await health.check(), { ok: true });
    // A probe that cannot write reports why, and its result is reused for 2 s.
    const broken = new StorageHealth(`${dir}/missing/dir`, () => now);
    const state = await broken.check();
    assert.equal(state.ok, false);
    now += 1000;
    assert.deepEqual(await broken.check(), state);
    assert.deepEqual([...Deno.readDirSync(dir)], [], "the probe file is removed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("StorageHealth: the store's ping runs after the probe write; its failure keeps it degraded", async () => {
  const dir = await Deno.makeTempDir();
  let now = 0;
  let down = true;
  const ping = () =>
    down
      ? Promise.reject(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))
      : Promise.resolve();
  const health = new StorageHealth(dir, () => now, ping);
  try {
    assert.deepEqual(await health.check(), { ok: false, reason: "database unavailable" });
    down = false;
    assert.deepEqual(await health.check(), { ok: false, reason: "database unavailable" }, "reused");
    now += 2000;
    assert.deepEqual(await health.check(), { ok: true });
    assert.deepEqual([...Deno.readDirSync(dir)], [], "the probe file is removed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
