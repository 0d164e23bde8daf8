/** The forms port's contract on PostgreSQL (a fresh schema per test; `other`: a second pool). */
import { PgForms } from "../../src/store/pg/forms.ts";
import { freshPg } from "./contract/_pg.ts";
import { formsContract } from "./contract/forms.ts";

formsContract("PostgreSQL", async () => {
  const pg = await freshPg();
  return { port: new PgForms(pg.sql), other: new PgForms(pg.open()), close: pg.close };
});
