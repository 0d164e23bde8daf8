/**
 * A fresh Deno KV store in a temporary directory, for the contract suites' KV runs.
 */
import { openStore } from "../../../src/store/kv/file.ts";

/** Opens an empty store; `close` closes it and removes its directory. */
export async function freshKv(): Promise<{ kv: Deno.Kv; dir: string; close(): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-contract-" });
  const kv = await openStore(dir);
  return {
    kv,
    dir,
    close: async () => {
      kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
