import { PgBlobMeta } from "../../src/store/pg/blob_meta.ts";
import { blobMetaContract } from "./contract/blob_meta.ts";
import { freshPg } from "./contract/_pg.ts";

blobMetaContract("postgres", async () => {
  const pg = await freshPg();
  return {
    port: new PgBlobMeta(pg.sql),
    second: () => new PgBlobMeta(pg.open()),
    close: pg.close,
  };
});
