/** A fresh Deno KV store in a temp dir, for the ports' contract tests on Deno KV. */
import { openStore } from "../../src/store/kv/file.ts";

/** Opens a store in a new temp dir; `close` closes it and removes the dir. */
export async function tempKv(): Promise<{ kv: Deno.Kv; close(): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-contract-" });
  const kv = await openStore(dir);
  return {
    kv,
    close: async () => {
      kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
