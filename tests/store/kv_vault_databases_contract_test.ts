/** The vault databases port's contract on Deno KV (a fresh store in a temp dir per test). */
import { KvVaultDatabases } from "../../src/store/kv/vault_databases.ts";
import { tempKv } from "./_kv.ts";
import { vaultDatabasesContract } from "./contract/vault_databases.ts";

vaultDatabasesContract("Deno KV", async () => {
  const { kv, close } = await tempKv();
  return { port: new KvVaultDatabases(kv), close };
});
