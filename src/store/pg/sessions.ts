/**
 * The console sessions port on PostgreSQL: a row per session in `vault_console_sessions`
 * (its `user_id` column holds the person's id), with its expiry (the database's clock, shared by every process); expired rows read as
 * absent and are pruned as new sessions are made.
 *
 * @module
 */
import type { ConsoleSession, SessionsPort } from "../ports/sessions.ts";
import { json } from "./json.ts";
import type { Sql } from "./db.ts";

/** Expired sessions pruned per new session at most (bounded work per sign-in). */
const PRUNE = 100;

/**
 * The PostgreSQL session store.
 *
 * @example
 * ```ts
 * const sessions = new PgSessions(sql);
 * await sessions.create(idHash, row, 3600_000);
 * ```
 */
export class PgSessions implements SessionsPort {
  constructor(private sql: Sql) {}

  async create(idHash: string, row: ConsoleSession, ttlMs: number): Promise<void> {
    await this.sql`
      insert into vault_console_sessions (id_hash, user_id, data, seen_at, expires_at)
      values (${idHash}, ${row.personId}, ${json(row)}::jsonb, ${row.seenAt},
        now() + ${ttlMs} * interval '1 millisecond')
      on conflict (id_hash) do update set user_id = excluded.user_id, data = excluded.data,
        seen_at = excluded.seen_at, expires_at = excluded.expires_at`;
    await this.sql`delete from vault_console_sessions where id_hash in (
      select id_hash from vault_console_sessions where expires_at < now() limit ${PRUNE})`;
  }

  async get(idHash: string): Promise<ConsoleSession | null> {
    const rows = await this.sql<{ data: ConsoleSession }[]>`
      select data from vault_console_sessions where id_hash = ${idHash} and expires_at > now()`;
    return rows[0]?.data ?? null;
  }

  async touch(idHash: string, seenAt: number, ttlMs: number): Promise<boolean> {
    const rows = await this.sql`
      update vault_console_sessions
      set seen_at = ${seenAt}, data = jsonb_set(data, '{seenAt}', to_jsonb(${seenAt}::bigint)),
        expires_at = now() + ${ttlMs} * interval '1 millisecond'
      where id_hash = ${idHash} and seen_at < ${seenAt} and expires_at > now()
      returning id_hash`;
    return rows.length === 1;
  }

  /** The row names its person, so `idHash` alone finds it. */
  async delete(_personId: string, idHash: string): Promise<void> {
    await this.sql`delete from vault_console_sessions where id_hash = ${idHash}`;
  }

  async deleteAll(personId: string): Promise<number> {
    const rows = await this.sql<{ live: boolean }[]>`
      delete from vault_console_sessions where user_id = ${personId}
      returning expires_at > now() as live`;
    return rows.filter((r) => r.live).length;
  }

  async list(personId: string): Promise<{ idHash: string; session: ConsoleSession }[]> {
    const rows = await this.sql<{ id_hash: string; data: ConsoleSession }[]>`
      select id_hash, data from vault_console_sessions
      where user_id = ${personId} and expires_at > now()
      order by (data->>'createdAt')::bigint, id_hash`;
    return rows.map((r) => ({ idHash: r.id_hash, session: r.data }));
  }
}
