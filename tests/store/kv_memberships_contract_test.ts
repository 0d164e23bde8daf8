import { KvMemberships } from "../../src/store/kv/memberships.ts";
import { membershipsContract } from "./contract/memberships.ts";
import { freshKv } from "./contract/_kv.ts";

membershipsContract("deno kv", async () => {
  const { kv, close } = await freshKv();
  return { port: new KvMemberships(kv), close };
});
