import { PgTickets } from "../../src/store/pg/tickets.ts";
import { ticketsContract } from "./contract/tickets.ts";
import { freshPg } from "./contract/_pg.ts";

ticketsContract("postgres", async () => {
  const pg = await freshPg();
  return {
    port: new PgTickets(pg.sql),
    second: () => new PgTickets(pg.open()),
    close: pg.close,
  };
});
