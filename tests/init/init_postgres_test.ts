/**
 * `init` with `store.backend = "postgres"`: processes with their own data dirs initialise one
 * database once; the others join it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../../src/config/index.ts";
import { initDataDir } from "../../src/init/init.ts";
import { freshPg } from "../store/contract/_pg.ts";

async function pgConfig(pg: { url: string; schema: string }, dir: string, extra = {}) {
  return await loadConfig({
    env: {
      SEALPOST_STORE_BACKEND: "postgres",
      SEALPOST_POSTGRES_URL: `${pg.url}?search_path=${pg.schema}`,
      ...extra,
    },
    flags: { data: dir },
  });
}

Deno.test("init on postgres: of three processes at once one initialises, the others join", async () => {
  const pg = await freshPg();
  const work = await Deno.makeTempDir({ prefix: "sealpost-init-pg-" });
  try {
    const dirs = ["a", "b", "c"].map((name) => join(work, name));
    const configs = await Promise.all(dirs.map((dir) => pgConfig(pg, dir)));
    const results = await Promise.all(configs.map((config) => initDataDir(config)));
    const created = results.filter((r) => r.created);
    assert.equal(created.length, 1, "exactly one initialised the database");
    const [first] = created;
    assert.ok(first.credentials);
    assert.match(first.credentials.ownerToken, /^spo_/);
    for (const result of results) {
      assert.equal(result.userId, first.userId, "every process knows the one first user");
      if (result !== first) assert.equal(result.credentials, null, "a joiner has no tokens");
      // The relay secret lives in the database, not in any data dir.
      await assert.rejects(Deno.stat(join(result.dataDir, "relay.secret")), Deno.errors.NotFound);
    }
    const settings = await pg.sql`select name from sealpost_settings order by name`;
    assert.deepEqual(settings.map((row) => row.name), ["first_user_id", "relay_secret"]);
    // Again, on the initialising data dir: its credentials, unchanged; nothing migrated.
    const again = await initDataDir(configs[results.indexOf(first)]);
    assert.equal(again.created, false);
    assert.deepEqual(again.credentials, first.credentials);
    assert.deepEqual(again.migration.applied, []);
    assert.match(again.migration.where, /^the PostgreSQL database 127\.0\.0\.1:\d+\//);
    assert.doesNotMatch(again.migration.where, /:[^@/]*@/, "no password");
  } finally {
    await Deno.remove(work, { recursive: true });
    await pg.close();
  }
});

Deno.test("init on postgres with store.relay_secret_file: the file is checked, none made in the database", async () => {
  const pg = await freshPg();
  const work = await Deno.makeTempDir({ prefix: "sealpost-init-pg-" });
  try {
    const file = join(work, "relay.secret");
    const missing = await pgConfig(pg, join(work, "a"), { SEALPOST_STORE_RELAY_SECRET_FILE: file });
    await assert.rejects(initDataDir(missing), /store\.relay_secret_file .* does not exist/);
    await Deno.writeTextFile(file, "dG9vIHNob3J0\n");
    await assert.rejects(initDataDir(missing), /has 9 bytes, expected 32/);
    await Deno.writeTextFile(file, crypto.getRandomValues(new Uint8Array(32)).toBase64());
    const result = await initDataDir(missing);
    assert.equal(result.created, true);
    const rows = await pg.sql`select name from sealpost_settings where name = 'relay_secret'`;
    assert.equal(rows.length, 0);
  } finally {
    await Deno.remove(work, { recursive: true });
    await pg.close();
  }
});
