import { PgIdentity } from "../../src/store/pg/identity.ts";
import { identityContract } from "./contract/identity.ts";
import { freshPg } from "./contract/_pg.ts";

identityContract("postgres", async () => {
  const pg = await freshPg();
  return {
    port: new PgIdentity(pg.sql),
    second: () => new PgIdentity(pg.open()),
    close: pg.close,
  };
});
