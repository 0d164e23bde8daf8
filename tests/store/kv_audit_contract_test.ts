/** The audit port's contract on Deno KV (a fresh store in a temp dir per test). */
import { KvAudit } from "../../src/store/kv/audit.ts";
import { auditContract } from "./contract/audit.ts";
import { freshKv } from "./contract/_kv.ts";

auditContract("deno kv", async () => {
  const { kv, close } = await freshKv();
  return { port: new KvAudit(kv), second: () => new KvAudit(kv), close };
});
