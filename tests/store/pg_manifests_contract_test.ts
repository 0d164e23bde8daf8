import { PgManifests } from "../../src/store/pg/manifests.ts";
import { manifestsContract } from "./contract/manifests.ts";
import { freshPg } from "./contract/_pg.ts";

manifestsContract("postgres", async () => {
  const pg = await freshPg();
  return {
    port: new PgManifests(pg.sql),
    second: () => new PgManifests(pg.open()),
    close: pg.close,
  };
});
