import assert from "node:assert/strict";
import { initialiseOnce, sharedRelaySecret, withPgLock } from "../../../src/store/pg/settings.ts";
import { freshPg } from "../contract/_pg.ts";

Deno.test("sharedRelaySecret: processes starting together all get the one secret made first", async () => {
  const pg = await freshPg();
  try {
    const pools = [pg.sql, pg.open(), pg.open()];
    const secrets = await Promise.all(pools.map((sql) => sharedRelaySecret(sql)));
    assert.equal(secrets[0].length, 32);
    for (const secret of secrets) assert.deepEqual(secret, secrets[0]);
    assert.deepEqual(await sharedRelaySecret(pg.open()), secrets[0], "a later process too");
    const rows = await pg.sql`select name from sealpost_settings where name = 'relay_secret'`;
    assert.equal(rows.length, 1);
  } finally {
    await pg.close();
  }
});

Deno.test("sharedRelaySecret: a damaged setting is an error that does not show it", async () => {
  const pg = await freshPg();
  try {
    await pg.sql`insert into sealpost_settings (name, value) values ('relay_secret', 'c2hvcnQ=')`;
    await assert.rejects(sharedRelaySecret(pg.sql), (err: Error) => {
      assert.match(err.message, /has 5 bytes, expected 32/);
      assert.doesNotMatch(err.message, /c2hvcnQ/);
      return true;
    });
  } finally {
    await pg.close();
  }
});

Deno.test("initialiseOnce: of three processes starting at once, exactly one creates", async () => {
  const pg = await freshPg();
  try {
    let creations = 0;
    const create = async () => {
      creations++;
      await new Promise((resolve) => setTimeout(resolve, 50));
      return `user_${creations}`;
    };
    const pools = [pg.sql, pg.open(), pg.open()];
    const runs = await Promise.all(pools.map((sql) => initialiseOnce(sql, create)));
    assert.equal(creations, 1);
    assert.deepEqual(runs.filter((r) => r.created).length, 1);
    for (const run of runs) assert.equal(run.userId, "user_1");
    const again = await initialiseOnce(pg.open(), create);
    assert.deepEqual(again, { userId: "user_1", created: false });
    assert.equal(creations, 1);
  } finally {
    await pg.close();
  }
});

Deno.test("initialiseOnce: a failed first run leaves the database uninitialised for the next", async () => {
  const pg = await freshPg();
  try {
    await assert.rejects(
      initialiseOnce(pg.sql, () => Promise.reject(new Error("disk on fire"))),
      /disk on fire/,
    );
    const run = await initialiseOnce(pg.open(), () => Promise.resolve("user_2"));
    assert.deepEqual(run, { userId: "user_2", created: true });
  } finally {
    await pg.close();
  }
});

Deno.test("withPgLock: holders on two pools never overlap, and the lock is released on failure", async () => {
  const pg = await freshPg();
  try {
    let inside = 0;
    let most = 0;
    const hold = (sql: typeof pg.sql, i: number) =>
      withPgLock(sql, "test", async () => {
        inside++;
        most = Math.max(most, inside);
        await new Promise((resolve) => setTimeout(resolve, 20));
        inside--;
        if (i === 0) throw new Error("first holder fails");
        return i;
      });
    const pools = [pg.sql, pg.open()];
    const results = await Promise.allSettled([0, 1, 2, 3].map((i) => hold(pools[i % 2], i)));
    assert.equal(most, 1, "one holder at a time");
    assert.equal(results[0].status, "rejected");
    assert.deepEqual(
      results.slice(1).map((r) => r.status === "fulfilled" ? r.value : null),
      [1, 2, 3],
    );
  } finally {
    await pg.close();
  }
});
