import { PgMemberships } from "../../src/store/pg/memberships.ts";
import { membershipsContract } from "./contract/memberships.ts";
import { freshPg } from "./contract/_pg.ts";

membershipsContract("postgres", async () => {
  const pg = await freshPg();
  return {
    port: new PgMemberships(pg.sql),
    second: () => new PgMemberships(pg.open()),
    close: pg.close,
  };
});
