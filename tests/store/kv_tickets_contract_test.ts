import { KvTickets } from "../../src/store/kv/tickets.ts";
import { ticketsContract } from "./contract/tickets.ts";
import { freshKv } from "./contract/_kv.ts";

ticketsContract("deno kv", async () => {
  const { kv, close } = await freshKv();
  return { port: new KvTickets(kv), close };
});
