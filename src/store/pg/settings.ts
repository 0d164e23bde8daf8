/**
 * Instance-wide settings of a PostgreSQL store (`sealpost_settings`), shared by every process
 * on the database: the relay secret, made once by whichever process comes first, and the first
 * run's marker, so a process joining an initialised database does not initialise it again.
 *
 * @module
 */
import { newRelaySecretText, parseRelaySecret } from "../data_dir.ts";
import type { FirstRun } from "../open.ts";
import type { Sql } from "./db.ts";

/**
 * Names of the `sealpost_settings` rows: the relay secret (base64 of 32 bytes) and the first
 * user's id, whose presence marks the database initialised.
 */
export const PG_SETTINGS = { relaySecret: "relay_secret", firstUser: "first_user_id" } as const;

/**
 * The relay secret kept in the database: the first caller's random one; every later caller,
 * in any process, reads that same one (a unique name, `on conflict do nothing`).
 *
 * @example
 * ```ts
 * const secret = await sharedRelaySecret(sql); // 32 bytes, the same in every process
 * ```
 */
export async function sharedRelaySecret(sql: Sql): Promise<Uint8Array> {
  await sql`insert into sealpost_settings (name, value)
    values (${PG_SETTINGS.relaySecret}, ${newRelaySecretText()}) on conflict (name) do nothing`;
  const [row] = await sql<{ value: string }[]>`
    select value from sealpost_settings where name = ${PG_SETTINGS.relaySecret}`;
  return parseRelaySecret(row.value, "the database's sealpost_settings");
}

/**
 * Runs `fn` holding the lock `name` of the store's schema, for every process on the database (a
 * session advisory lock on a connection of its own, so `fn` may use the rest of the pool;
 * released when `fn` settles or the process dies). The pool needs two connections at least.
 *
 * @example
 * ```ts
 * await withPgLock(sql, "vault_bootstrap", () => vault.bootstrap(userId));
 * ```
 */
export async function withPgLock<T>(sql: Sql, name: string, fn: () => Promise<T>): Promise<T> {
  const conn = await sql.reserve();
  try {
    await conn`select pg_advisory_lock(hashtext(current_schema() || ':' || ${name}))`;
    try {
      return await fn();
    } finally {
      await conn`select pg_advisory_unlock(hashtext(current_schema() || ':' || ${name}))`;
    }
  } finally {
    conn.release();
  }
}

/**
 * Runs `create` (which makes the admin token and the first user, and answers the user's id)
 * unless the database was initialised already, by this process or another: under a lock, so
 * of several processes starting at once exactly one creates.
 *
 * @example
 * ```ts
 * const { created, userId } = await initialiseOnce(sql, async () => (await newUser()).id);
 * ```
 */
export function initialiseOnce(sql: Sql, create: () => Promise<string>): Promise<FirstRun> {
  return withPgLock(sql, "init", async () => {
    const [done] = await sql<{ value: string }[]>`
      select value from sealpost_settings where name = ${PG_SETTINGS.firstUser}`;
    if (done) return { userId: done.value, created: false };
    const userId = await create();
    await sql`insert into sealpost_settings (name, value) values (${PG_SETTINGS.firstUser}, ${userId})`;
    return { userId, created: true };
  });
}
