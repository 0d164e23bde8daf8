/**
 * One process per data dir, a read-only data dir at start, and the store's file modes.
 */
import assert from "node:assert/strict";
import { initDataDir } from "../../src/init/init.ts";
import { loadConfig } from "../../src/config/index.ts";
import { startServer } from "../../src/server.ts";
import { claimDataDir, DataDirError, lockHolder } from "../../src/store/data_dir.ts";
import { KV_FILE } from "../../src/store/kv/file.ts";
import { sealpost } from "../_support/cli.ts";
import { envelopeFor, publishForm, registerDatabase } from "../_support/owner.ts";
import { freePort, spawnServer } from "../_support/process.ts";
import { call, startInstance } from "../_support/server.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

Deno.test("a second serve on the same data dir is refused with a clear message and exit 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-lock-" });
  const first = await spawnServer(dir);
  try {
    const second = await sealpost(["serve", "--data", dir, "--port", String(freePort())]);
    assert.equal(second.code, 1);
    assert.match(second.stderr, /is in use by another sealpost serve/);
    assert.equal(second.stderr.trim().split("\n").length, 1, second.stderr);
    assert.doesNotMatch(second.stderr, /\bat /, "no stack trace");
    // The first one still serves.
    assert.equal((await call(`${first.url}/healthz`)).status, 200);
  } finally {
    assert.equal((await first.stop()).code, 0);
  }
  // Released on shutdown: a new serve may take it.
  const again = await spawnServer(dir);
  await again.stop();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("the lock file names its holder's pid while held, and nobody once released", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-lock-pid-" });
  const lock = await claimDataDir(dir);
  assert.equal(await lockHolder(dir), Deno.pid);
  lock.release();
  // The pid is still in the file, but nobody holds the lock: a stale pid is not believed.
  assert.equal(await lockHolder(dir), null);
  assert.equal(await lockHolder(`${dir}/missing`), null);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("startServer in the same process is refused too; released after shutdown", async () => {
  const inst = await startInstance();
  try {
    await assert.rejects(() => startServer(inst.config), DataDirError);
    await assert.rejects(() => claimDataDir(inst.config.data_dir), /in use/);
  } finally {
    await inst.server.shutdown();
  }
  const lock = await claimDataDir(inst.config.data_dir);
  lock.release();
  await Deno.remove(inst.config.data_dir, { recursive: true });
});

Deno.test({
  name: "a read-only data dir at start: one-line error, exit 1",
  ignore: Deno.uid() !== 0,
  fn: async () => {
    const mountPoint = await Deno.makeTempDir({ prefix: "sealpost-ro-" });
    const mount = (...args: string[]) => new Deno.Command("mount", { args }).output();
    await mount("-t", "tmpfs", "-o", "size=16m", "tmpfs", mountPoint);
    try {
      const dir = `${mountPoint}/data`;
      const config = await loadConfig({ flags: { data: dir } });
      await initDataDir(config);
      assert.ok((await mount("-o", "remount,ro", mountPoint)).success);
      const result = await sealpost(["serve", "--data", dir, "--port", String(freePort())]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^Data dir .* is not writable: Read-only file system/);
      assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
    } finally {
      await new Deno.Command("umount", { args: [mountPoint] }).output();
      await Deno.remove(mountPoint, { recursive: true });
    }
  },
});

async function modeOf(path: string): Promise<number> {
  return (await Deno.stat(path)).mode! & 0o777;
}

Deno.test("the store file and its -wal/-shm are 0600 in a 0777 folder under umask 000", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-mode-" });
  await Deno.chmod(dir, 0o777);
  // init under umask 000 creates the store; a server then writes through it.
  const init = await new Deno.Command("sh", {
    args: ["-c", `umask 000 && exec "${Deno.execPath()}" run -A "${MAIN}" init --data "${dir}"`],
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.ok(init.success, new TextDecoder().decode(init.stderr));
  const inst = await startInstance({}, dir);
  try {
    const db = await registerDatabase(inst);
    await publishForm(inst, db, "contact");
    const sent = await call(`${inst.url}/submissions`, {
      method: "POST",
      json: await envelopeFor(db, "contact"),
    });
    assert.equal(sent.status, 200);
    const store = `${dir}/${KV_FILE}`;
    for (const path of [store, `${store}-wal`, `${store}-shm`]) {
      assert.equal((await modeOf(path)).toString(8), "600", path);
    }
  } finally {
    await inst.close();
    await Deno.remove(dir, { recursive: true });
  }
});
