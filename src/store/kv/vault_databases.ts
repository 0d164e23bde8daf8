/**
 * The vault databases port on Deno KV: rows under `vaultKeys.database`, facts under
 * `vaultKeys.meta`.
 *
 * @module
 */
import { vaultKeys } from "./keys.ts";
import type { VaultDatabase, VaultDatabasesPort } from "../ports/vault_databases.ts";
import { KvWrite } from "./write.ts";

/**
 * The Deno KV store of the vault's databases.
 *
 * @example
 * ```ts
 * const databases = new KvVaultDatabases(kv);
 * await databases.list();
 * ```
 */
export class KvVaultDatabases implements VaultDatabasesPort {
  constructor(private kv: Deno.Kv) {}

  async put(row: VaultDatabase): Promise<void> {
    await new KvWrite().set(vaultKeys.database(row.id), row).commit(this.kv);
  }

  async get(id: string): Promise<VaultDatabase | null> {
    return (await this.kv.get<VaultDatabase>(vaultKeys.database(id))).value;
  }

  async list(): Promise<VaultDatabase[]> {
    return await Array.fromAsync(
      this.kv.list<VaultDatabase>({ prefix: vaultKeys.databases() }),
      (entry) => entry.value,
    );
  }

  async fact<T>(name: string): Promise<T | null> {
    return (await this.kv.get<T>(vaultKeys.meta(name))).value;
  }

  async setFact(name: string, value: unknown): Promise<void> {
    await new KvWrite().set(vaultKeys.meta(name), value).commit(this.kv);
  }
}
