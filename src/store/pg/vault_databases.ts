/**
 * The vault databases port on PostgreSQL: rows in `vault_databases`, facts in `vault_facts`.
 *
 * @module
 */
import type { VaultDatabase, VaultDatabasesPort } from "../ports/vault_databases.ts";
import { json } from "./json.ts";
import type { Sql } from "./db.ts";

/**
 * The PostgreSQL store of the vault's databases.
 *
 * @example
 * ```ts
 * const databases = new PgVaultDatabases(sql);
 * await databases.list();
 * ```
 */
export class PgVaultDatabases implements VaultDatabasesPort {
  constructor(private sql: Sql) {}

  async put(row: VaultDatabase): Promise<void> {
    await this.sql`
      insert into vault_databases (id, data) values (${row.id}, ${json(row)}::jsonb)
      on conflict (id) do update set data = excluded.data`;
  }

  async get(id: string): Promise<VaultDatabase | null> {
    const rows = await this.sql<{ data: VaultDatabase }[]>`
      select data from vault_databases where id = ${id}`;
    return rows[0]?.data ?? null;
  }

  async list(): Promise<VaultDatabase[]> {
    const rows = await this.sql<{ data: VaultDatabase }[]>`
      select data from vault_databases order by id`;
    return rows.map((r) => r.data);
  }

  async fact<T>(name: string): Promise<T | null> {
    const rows = await this.sql<{ value: T }[]>`select value from vault_facts where name = ${name}`;
    return rows[0]?.value ?? null;
  }

  async setFact(name: string, value: unknown): Promise<void> {
    await this.sql`
      insert into vault_facts (name, value) values (${name}, ${json(value)}::jsonb)
      on conflict (name) do update set value = excluded.value`;
  }
}
