/**
 * The port of the vault's databases (public halves of its key pairs, registered with the
 * relay; the private keys are files, see src/vault/keys.ts) and of vault-wide facts.
 *
 * @module
 */
import type { VaultDatabaseRow } from "../rows.ts";

export type { VaultDatabaseRow };

/**
 * Storage of the vault's databases.
 *
 * @example
 * ```ts
 * await databases.put(row);
 * const same = await databases.get(row.id);
 * ```
 */
export interface VaultDatabasesPort {
  /** Saves a database row (insert or replace, by `row.id`). Durable when it resolves. */
  put(row: VaultDatabaseRow): Promise<void>;

  /** The database `id`, or null. */
  get(id: string): Promise<VaultDatabaseRow | null>;

  /** Every database of the vault (all owners), ordered by id. */
  list(): Promise<VaultDatabaseRow[]>;

  /** A vault-wide fact saved with {@link setFact} (e.g. the first-run demo form), or null. */
  fact<T>(name: string): Promise<T | null>;

  /** Saves a vault-wide fact (JSON data), replacing the previous value. */
  setFact(name: string, value: unknown): Promise<void>;
}
