/** The sign-in factors port's contract on PostgreSQL (a fresh schema per test; a second pool). */
import { PgSignInFactors } from "../../src/store/pg/sign_in_factors.ts";
import { freshPg } from "./contract/_pg.ts";
import { signInFactorsContract } from "./contract/sign_in_factors.ts";

signInFactorsContract("PostgreSQL", async () => {
  const pg = await freshPg();
  return {
    port: new PgSignInFactors(pg.sql),
    second: () => new PgSignInFactors(pg.open()),
    close: pg.close,
  };
});
