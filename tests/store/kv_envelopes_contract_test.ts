import { join } from "node:path";
import { GroupCommitter } from "../../src/store/group_commit.ts";
import { KV_FILE } from "../../src/store/kv.ts";
import { KvEnvelopes } from "../../src/store/kv/envelopes.ts";
import { envelopesContract } from "./contract/envelopes.ts";
import { freshKv } from "./contract/_kv.ts";

envelopesContract("deno kv", async () => {
  const { kv, dir, close } = await freshKv();
  const port = new KvEnvelopes(kv, new GroupCommitter(kv), { storePath: join(dir, KV_FILE) });
  return {
    port,
    close: async () => {
      port.close();
      await close();
    },
  };
});

envelopesContract("deno kv, depth by listing", async () => {
  const { kv, close } = await freshKv();
  return { port: new KvEnvelopes(kv, new GroupCommitter(kv)), close };
});
