import assert from "node:assert/strict";
import { pgPart, runPgParts } from "../../../src/store/pg/write_part.ts";
import { kvPart } from "../../../src/store/kv/write_part.ts";
import { freshPg } from "../contract/_pg.ts";

Deno.test("pg write parts: run in the committing transaction, rolled back with it", async () => {
  const pg = await freshPg();
  try {
    await pg.sql`create table parts (name text)`;
    const part = pgPart(async (tx) => {
      await tx`insert into parts values ('part')`;
    });
    await pg.sql.begin((tx) => runPgParts(tx, [part]));
    await assert.rejects(pg.sql.begin(async (tx) => {
      await runPgParts(tx, [part]);
      throw new Error("abort");
    }));
    const rows = await pg.sql`select name from parts`;
    assert.equal(rows.length, 1);
  } finally {
    await pg.close();
  }
});

Deno.test("pg write parts: a Deno KV part is refused", async () => {
  const pg = await freshPg();
  try {
    await assert.rejects(
      pg.sql.begin((tx) => runPgParts(tx, [kvPart(() => {})])),
      /backend "kv" cannot join a PostgreSQL write/,
    );
  } finally {
    await pg.close();
  }
});
