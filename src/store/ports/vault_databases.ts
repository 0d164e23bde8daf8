/**
 * The port of the vault's databases (public halves of its key pairs, registered with the
 * relay; the private keys are files, see src/vault/keys.ts) and of vault-wide facts.
 *
 * @module
 */

/** A database as the vault knows it: the relay's database id and the key's fingerprint. */
export interface VaultDatabase {
  /** The database id the relay assigned at registration. */
  id: string;
  /** The vault user (owner token's user) it belongs to. */
  userId: string;
  /** The relay user id its manifests name as `recipient.userId`. */
  relayUserId: string;
  name: string;
  /** Standard base64 of the X25519 public key; the private key is a file (see vault/keys.ts). */
  publicKey: string;
  fingerprint: string;
  createdAt: string;
}

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
  put(row: VaultDatabase): Promise<void>;

  /** The database `id`, or null. */
  get(id: string): Promise<VaultDatabase | null>;

  /** Every database of the vault (all owners), ordered by id. */
  list(): Promise<VaultDatabase[]>;

  /** A vault-wide fact saved with {@link setFact} (e.g. the first-run demo form), or null. */
  fact<T>(name: string): Promise<T | null>;

  /** Saves a vault-wide fact (JSON data), replacing the previous value. */
  setFact(name: string, value: unknown): Promise<void>;
}
