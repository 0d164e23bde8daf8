/** The console sessions port's contract on Deno KV (a fresh store in a temp dir per test). */
import { KvSessions } from "../../src/store/kv/sessions.ts";
import { tempKv } from "./_kv.ts";
import { sessionsContract } from "./contract/sessions.ts";

sessionsContract("Deno KV", async () => {
  const { kv, close } = await tempKv();
  return { port: new KvSessions(kv), other: new KvSessions(kv), close };
});
