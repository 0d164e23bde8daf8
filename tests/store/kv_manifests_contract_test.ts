import { KvManifests } from "../../src/store/kv/manifests.ts";
import { manifestsContract } from "./contract/manifests.ts";
import { freshKv } from "./contract/_kv.ts";

manifestsContract("deno kv", async () => {
  const { kv, close } = await freshKv();
  return { port: new KvManifests(kv), close };
});
