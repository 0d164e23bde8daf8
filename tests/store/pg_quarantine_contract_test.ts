/** The quarantine port's contract on PostgreSQL (a fresh schema per test; `other`: a second pool). */
import { PgQuarantine } from "../../src/store/pg/quarantine.ts";
import { freshPg } from "./contract/_pg.ts";
import { quarantineContract } from "./contract/quarantine.ts";

quarantineContract("PostgreSQL", async () => {
  const pg = await freshPg();
  return { port: new PgQuarantine(pg.sql), other: new PgQuarantine(pg.open()), close: pg.close };
});
