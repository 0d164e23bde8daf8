/** The audit port's contract on PostgreSQL (a fresh schema per test; `second`: another pool). */
import { PgAudit } from "../../src/store/pg/audit.ts";
import { auditContract } from "./contract/audit.ts";
import { freshPg } from "./contract/_pg.ts";

auditContract("postgres", async () => {
  const pg = await freshPg();
  return { port: new PgAudit(pg.sql), second: () => new PgAudit(pg.open()), close: pg.close };
});
