import { join } from "node:path";
import { GroupCommitter } from "../../src/store/group_commit.ts";
import { KV_FILE } from "../../src/store/kv.ts";
import { KvEnvelopes } from "../../src/store/kv/envelopes.ts";
import { KvWrite } from "../../src/store/write.ts";
import { addKvPart, type WritePart } from "../../src/store/write_part.ts";
import { envelopesContract } from "./contract/envelopes.ts";
import { freshKv } from "./contract/_kv.ts";

/** Commits `parts` in one write, as the vault's record commit does. */
const committing = (kv: Deno.Kv) => async (parts: WritePart[]) => {
  const w = new KvWrite();
  for (const part of parts) addKvPart(w, part);
  if (!await w.commit(kv)) throw new Error("The parts' write was refused");
};

envelopesContract("deno kv", async () => {
  const { kv, dir, close } = await freshKv();
  const port = new KvEnvelopes(kv, new GroupCommitter(kv), { storePath: join(dir, KV_FILE) });
  return {
    port,
    commit: committing(kv),
    close: async () => {
      port.close();
      await close();
    },
  };
});

envelopesContract("deno kv, depth by listing", async () => {
  const { kv, close } = await freshKv();
  return { port: new KvEnvelopes(kv, new GroupCommitter(kv)), commit: committing(kv), close };
});
