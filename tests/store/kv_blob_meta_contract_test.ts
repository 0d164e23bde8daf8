import { KvBlobMeta } from "../../src/store/kv/blob_meta.ts";
import { blobMetaContract } from "./contract/blob_meta.ts";
import { freshKv } from "./contract/_kv.ts";

blobMetaContract("deno kv", async () => {
  const { kv, close } = await freshKv();
  return { port: new KvBlobMeta(kv), close };
});
