import { PgPeople } from "../../src/store/pg/people.ts";
import { peopleContract } from "./contract/people.ts";
import { freshPg } from "./contract/_pg.ts";

peopleContract("postgres", async () => {
  const pg = await freshPg();
  return {
    port: new PgPeople(pg.sql),
    second: () => new PgPeople(pg.open()),
    close: pg.close,
  };
});
