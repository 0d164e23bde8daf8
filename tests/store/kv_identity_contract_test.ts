import { KvIdentity } from "../../src/store/kv/identity.ts";
import { identityContract } from "./contract/identity.ts";
import { freshKv } from "./contract/_kv.ts";

identityContract("deno kv", async () => {
  const { kv, close } = await freshKv();
  return { port: new KvIdentity(kv), close };
});
