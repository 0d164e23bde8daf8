/** The vault databases port's contract on PostgreSQL (a fresh schema per test). */
import { PgVaultDatabases } from "../../src/store/pg/vault_databases.ts";
import { freshPg } from "./contract/_pg.ts";
import { vaultDatabasesContract } from "./contract/vault_databases.ts";

vaultDatabasesContract("PostgreSQL", async () => {
  const pg = await freshPg();
  return { port: new PgVaultDatabases(pg.sql), close: pg.close };
});
