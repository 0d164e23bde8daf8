/** The quarantine port's contract on Deno KV (a fresh store in a temp dir per test). */
import { KvQuarantine } from "../../src/store/kv/quarantine.ts";
import { tempKv } from "./_kv.ts";
import { quarantineContract } from "./contract/quarantine.ts";

quarantineContract("Deno KV", async () => {
  const { kv, close } = await tempKv();
  return { port: new KvQuarantine(kv), other: new KvQuarantine(kv), close };
});
