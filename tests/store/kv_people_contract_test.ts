import { KvPeople } from "../../src/store/kv/people.ts";
import { peopleContract } from "./contract/people.ts";
import { freshKv } from "./contract/_kv.ts";

peopleContract("deno kv", async () => {
  const { kv, close } = await freshKv();
  return { port: new KvPeople(kv), close };
});
