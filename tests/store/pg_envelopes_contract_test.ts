import { PgEnvelopes } from "../../src/store/pg/envelopes.ts";
import { runPgParts } from "../../src/store/pg/write_part.ts";
import type { WritePart } from "../../src/store/ports/write_part.ts";
import { envelopesContract } from "./contract/envelopes.ts";
import { freshPg } from "./contract/_pg.ts";

envelopesContract("postgres", async () => {
  const pg = await freshPg();
  const port = await PgEnvelopes.open(pg.sql);
  return {
    port,
    /** Commits `parts` in one transaction, as the vault's record commit does. */
    commit: async (parts: WritePart[]) => {
      await pg.sql.begin((tx) => runPgParts(tx, parts));
    },
    close: async () => {
      await port.close();
      await pg.close();
    },
  };
});
