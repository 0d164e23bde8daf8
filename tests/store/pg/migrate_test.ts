import assert from "node:assert/strict";
import { migratePg, type PgMigration } from "../../../src/store/pg/migrate.ts";
import { PG_MIGRATIONS } from "../../../src/store/pg/migrations/index.ts";
import { SchemaVersionError } from "../../../src/store/ports/limits.ts";
import { freshPg } from "../contract/_pg.ts";

Deno.test("pg migrate: a fresh schema is at the last version; running again applies nothing", async () => {
  const pg = await freshPg();
  try {
    const again = await migratePg(pg.sql);
    assert.equal(again.from, PG_MIGRATIONS.length);
    assert.equal(again.to, PG_MIGRATIONS.length);
    assert.deepEqual(again.applied, []);
    const rows = await pg.sql`select version, name from sealpost_migrations order by version`;
    assert.deepEqual(rows.map((r) => r.name), PG_MIGRATIONS.map((m) => m.name));
  } finally {
    await pg.close();
  }
});

Deno.test("pg migrate: processes starting together apply each migration once", async () => {
  const pg = await freshPg();
  try {
    const extra: PgMigration[] = [...PG_MIGRATIONS, {
      version: PG_MIGRATIONS.length + 1,
      name: "counter",
      sql: "create table counter (n integer); insert into counter values (1);",
    }];
    const pools = [pg.open(), pg.open(), pg.open()];
    const results = await Promise.all(pools.map((sql) => migratePg(sql, extra)));
    assert.equal(results.filter((r) => r.applied.length === 1).length, 1);
    const [{ n }] = await pg.sql`select count(*)::int as n from counter`;
    assert.equal(n, 1);
  } finally {
    await pg.close();
  }
});

Deno.test("pg migrate: a failing migration leaves nothing of the run", async () => {
  const pg = await freshPg();
  try {
    const broken: PgMigration[] = [...PG_MIGRATIONS, {
      version: PG_MIGRATIONS.length + 1,
      name: "half",
      sql: "create table half (n integer); select no_such_function();",
    }];
    await assert.rejects(migratePg(pg.sql, broken));
    const [{ t }] = await pg.sql`select to_regclass('half')::text as t`;
    assert.equal(t, null);
    assert.equal((await migratePg(pg.sql)).from, PG_MIGRATIONS.length);
  } finally {
    await pg.close();
  }
});

Deno.test("pg migrate: a database of a newer Sealpost is refused", async () => {
  const pg = await freshPg();
  try {
    await pg.sql`insert into sealpost_migrations (version, name) values (${999}, 'future')`;
    await assert.rejects(migratePg(pg.sql), SchemaVersionError);
  } finally {
    await pg.close();
  }
});

Deno.test("pg migrate: migrations out of order are a program error", async () => {
  const pg = await freshPg();
  try {
    await assert.rejects(
      migratePg(pg.sql, [{ version: 2, name: "gap", sql: "" }]),
      /expected 1/,
    );
  } finally {
    await pg.close();
  }
});
