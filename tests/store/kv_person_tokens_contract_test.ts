import { KvPersonTokens } from "../../src/store/kv/person_tokens.ts";
import { personTokensContract } from "./contract/person_tokens.ts";
import { freshKv } from "./contract/_kv.ts";

personTokensContract("deno kv", async () => {
  const { kv, close } = await freshKv();
  return { port: new KvPersonTokens(kv), close };
});
