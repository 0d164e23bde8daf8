/**
 * The one backend choice (src/store/open.ts): what `serve` gets on Deno KV and on PostgreSQL.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../../src/config/index.ts";
import { initDataDir } from "../../src/init/init.ts";
import { openConfiguredStore } from "../../src/store/open.ts";
import { freshPg } from "./contract/_pg.ts";

async function configOf(dir: string, env: Record<string, string> = {}) {
  return await loadConfig({ env, flags: { data: dir } });
}

Deno.test("openConfiguredStore on Deno KV: the data dir's store and secret, or the configured secret file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-open-" });
  try {
    const config = await configOf(dir);
    const init = await initDataDir(config);
    const store = await openConfiguredStore(config);
    try {
      assert.equal(store.backend, "kv");
      const secret = (await Deno.readTextFile(join(dir, "relay.secret"))).trim();
      assert.equal(store.relaySecret.toBase64(), secret);
      assert.equal((await store.ports.relay.identity.getUser(init.userId))?.name, "");
      // The store-wide lock: holders one at a time, a failing one releases it.
      let inside = 0;
      let most = 0;
      const hold = (i: number) =>
        store.exclusive("test", async () => {
          most = Math.max(most, ++inside);
          await new Promise((resolve) => setTimeout(resolve, 10));
          inside--;
          if (i === 0) throw new Error("first holder fails");
          return i;
        });
      const held = await Promise.allSettled([0, 1, 2].map(hold));
      assert.equal(most, 1);
      assert.deepEqual(held.map((r) => r.status), ["rejected", "fulfilled", "fulfilled"]);
      assert.equal(await store.exclusive("test", () => Promise.resolve(7)), 7);
    } finally {
      await store.close();
    }
    const file = join(dir, "shared.secret");
    const shared = crypto.getRandomValues(new Uint8Array(32));
    await Deno.writeTextFile(file, shared.toBase64() + "\n");
    const fromFile = await openConfiguredStore(
      await configOf(dir, { SEALPOST_STORE_RELAY_SECRET_FILE: file }),
    );
    try {
      assert.deepEqual(fromFile.relaySecret, shared);
    } finally {
      await fromFile.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openConfiguredStore on postgres: no KV file; every process gets the database's one secret", async () => {
  const pg = await freshPg();
  const work = await Deno.makeTempDir({ prefix: "sealpost-open-pg-" });
  try {
    const env = {
      SEALPOST_STORE_BACKEND: "postgres",
      SEALPOST_POSTGRES_URL: `${pg.url}?search_path=${pg.schema}`,
      SEALPOST_STORE_POSTGRES_POOL_SIZE: "3",
    };
    const configs = await Promise.all(["a", "b"].map((name) => configOf(join(work, name), env)));
    const stores = await Promise.all(configs.map((config) => openConfiguredStore(config)));
    try {
      assert.deepEqual(stores.map((s) => s.backend), ["postgres", "postgres"]);
      assert.equal(stores[0].relaySecret.length, 32);
      assert.deepEqual(stores[1].relaySecret, stores[0].relaySecret);
      const [row] = await pg.sql`select value from sealpost_settings where name = 'relay_secret'`;
      assert.equal(row.value, stores[0].relaySecret.toBase64());
      // The store-wide lock holds across the two processes.
      let inside = 0;
      let most = 0;
      await Promise.all(stores.map((store) =>
        store.exclusive("test", async () => {
          most = Math.max(most, ++inside);
          await new Promise((resolve) => setTimeout(resolve, 30));
          inside--;
        })
      ));
      assert.equal(most, 1);
      for (const name of ["a", "b"]) {
        await assert.rejects(Deno.stat(join(work, name, "sealpost.kv")), Deno.errors.NotFound);
      }
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  } finally {
    await Deno.remove(work, { recursive: true });
    await pg.close();
  }
});
