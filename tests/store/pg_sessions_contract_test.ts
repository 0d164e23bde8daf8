/** The console sessions port's contract on PostgreSQL (a fresh schema per test; `other`: a second pool). */
import { PgSessions } from "../../src/store/pg/sessions.ts";
import { freshPg } from "./contract/_pg.ts";
import { sessionsContract } from "./contract/sessions.ts";

sessionsContract("PostgreSQL", async () => {
  const pg = await freshPg();
  return { port: new PgSessions(pg.sql), other: new PgSessions(pg.open()), close: pg.close };
});
