import assert from "node:assert/strict";
import { migratePg, type PgMigration } from "../../../src/store/pg/migrate.ts";
import { PG_MIGRATIONS } from "../../../src/store/pg/migrations/index.ts";
import { SchemaVersionError } from "../../../src/store/schema.ts";
import { freshPg } from "../contract/_pg.ts";

/** The version of the last migration (numbers may have gaps while the areas land). */
const LAST = PG_MIGRATIONS.at(-1)!.version;

Deno.test("pg migrate: a fresh schema is at the last version; running again applies nothing", async () => {
  const pg = await freshPg();
  try {
    const again = await migratePg(pg.sql);
    assert.equal(again.from, LAST);
    assert.equal(again.to, LAST);
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
      version: LAST + 1,
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
      version: LAST + 1,
      name: "half",
      sql: "create table half (n integer); select no_such_function();",
    }];
    await assert.rejects(migratePg(pg.sql, broken));
    const [{ t }] = await pg.sql`select to_regclass('half')::text as t`;
    assert.equal(t, null);
    assert.equal((await migratePg(pg.sql)).from, LAST);
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
      migratePg(pg.sql, [{ version: 2, name: "b", sql: "" }, { version: 2, name: "c", sql: "" }]),
      /expected 3 or more/,
    );
    await assert.rejects(migratePg(pg.sql, [{ version: 0, name: "zero", sql: "" }]), /expected 1/);
  } finally {
    await pg.close();
  }
});

Deno.test("pg migrate: a migration numbered below one applied already still runs, once", async () => {
  const pg = await freshPg();
  try {
    const table = (version: number, name: string): PgMigration => ({
      version,
      name,
      sql: `create table ${name} (n integer)`,
    });
    const later = [...PG_MIGRATIONS, table(LAST + 2, "later")];
    assert.deepEqual((await migratePg(pg.sql, later)).applied, ["later"]);
    const both = [...PG_MIGRATIONS, table(LAST + 1, "between"), table(LAST + 2, "later")];
    const result = await migratePg(pg.sql, both);
    assert.deepEqual([result.from, result.to, result.applied], [LAST + 2, LAST + 2, ["between"]]);
    assert.deepEqual((await migratePg(pg.sql, both)).applied, []);
  } finally {
    await pg.close();
  }
});
