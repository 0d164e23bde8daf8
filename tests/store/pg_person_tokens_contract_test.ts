import { PgPersonTokens } from "../../src/store/pg/person_tokens.ts";
import { personTokensContract } from "./contract/person_tokens.ts";
import { freshPg } from "./contract/_pg.ts";

personTokensContract("postgres", async () => {
  const pg = await freshPg();
  return {
    port: new PgPersonTokens(pg.sql),
    second: () => new PgPersonTokens(pg.open()),
    close: pg.close,
  };
});
