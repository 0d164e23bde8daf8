import assert from "node:assert/strict";
import { PgRateLimits } from "../../../src/store/pg/rate_limits.ts";
import { freshPg } from "../contract/_pg.ts";

Deno.test("pg rate limits: by default the database's clock counts", async () => {
  const pg = await freshPg();
  try {
    const limits = new PgRateLimits(pg.sql);
    const rule = { per_minute: 1, burst: 1 };
    assert.equal(await limits.take("f", "a", rule), 0);
    const wait = await limits.take("f", "a", rule);
    assert.ok(wait >= 59 && wait <= 60, `one token a minute: ${wait} s`);
    const [row] = await pg.sql`select updated_ms from relay_rate_buckets where key = 'a'`;
    assert.ok(Math.abs(row.updated_ms - Date.now()) < 60_000, "epoch milliseconds");
  } finally {
    await pg.close();
  }
});

Deno.test("pg rate limits: buckets full again are pruned, the others kept", async () => {
  const pg = await freshPg();
  try {
    let now = Date.parse("2030-01-01T00:00:00Z");
    const rule = { per_minute: 60, burst: 2 };
    const first = new PgRateLimits(pg.sql, { now: () => now });
    await first.take("f", "a", rule); // full again after 1 s
    await first.take("f", "b", rule);
    await first.take("f", "b", rule); // full again after 2 s
    now += 1500;
    // A process's first take prunes (then once a minute).
    await new PgRateLimits(pg.open(), { now: () => now }).take("g", "c", rule);
    const keys = await pg.sql`select family, key from relay_rate_buckets order by family, key`;
    assert.deepEqual(keys.map((r) => `${r.family}/${r.key}`), ["f/b", "g/c"]);
    assert.equal(await first.take("f", "a", rule), 0, "a pruned bucket starts full");
    assert.equal(await first.take("f", "a", rule), 0);
    assert.ok(await first.take("f", "a", rule) > 0);
  } finally {
    await pg.close();
  }
});
