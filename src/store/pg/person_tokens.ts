/**
 * The person tokens port on PostgreSQL: table `person_tokens`, indexed by person. A use is
 * written only when the last one is a minute old or more (a conditional update: a revoked
 * token is never written back).
 *
 * @module
 */
import type { PersonToken, PersonTokensPort, Scope } from "../ports/person_tokens.ts";
import type { Sql } from "./db.ts";
import { json } from "./json.ts";

interface TokenColumns {
  id: string;
  person_id: string;
  name: string;
  scopes: Scope[];
  secret_hash: string;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
}

const iso = (at: Date | null) => at?.toISOString() ?? null;

function tokenOf(r: TokenColumns): PersonToken {
  return {
    id: r.id,
    personId: r.person_id,
    name: r.name,
    scopes: r.scopes,
    secretHash: r.secret_hash,
    createdAt: r.created_at.toISOString(),
    expiresAt: iso(r.expires_at),
    lastUsedAt: iso(r.last_used_at),
  };
}

/**
 * People's tokens in PostgreSQL.
 *
 * @example
 * ```ts
 * const tokens = new PgPersonTokens(sql);
 * await tokens.list(personId); // newest first
 * ```
 */
export class PgPersonTokens implements PersonTokensPort {
  constructor(private readonly sql: Sql) {}

  async save(t: PersonToken): Promise<void> {
    await this.sql`
      insert into person_tokens
        (id, person_id, name, scopes, secret_hash, created_at, expires_at, last_used_at)
      values (${t.id}, ${t.personId}, ${t.name}, ${json(t.scopes)}::jsonb, ${t.secretHash},
        ${t.createdAt}, ${t.expiresAt}, ${t.lastUsedAt})
      on conflict (id) do update set person_id = excluded.person_id, name = excluded.name,
        scopes = excluded.scopes, secret_hash = excluded.secret_hash,
        created_at = excluded.created_at, expires_at = excluded.expires_at,
        last_used_at = excluded.last_used_at`;
  }

  async get(id: string): Promise<PersonToken | null> {
    const [row] = await this.sql<TokenColumns[]>`select * from person_tokens where id = ${id}`;
    return row ? tokenOf(row) : null;
  }

  async list(personId: string): Promise<PersonToken[]> {
    const rows = await this.sql<TokenColumns[]>`
      select * from person_tokens where person_id = ${personId}
      order by created_at desc, id desc`;
    return rows.map(tokenOf);
  }

  async revoke(id: string): Promise<PersonToken | null> {
    const [row] = await this.sql<TokenColumns[]>`
      delete from person_tokens where id = ${id} returning *`;
    return row ? tokenOf(row) : null;
  }

  async touch(id: string, at: string): Promise<void> {
    await this.sql`
      update person_tokens set last_used_at = ${at}
      where id = ${id} and (last_used_at is null
        or last_used_at <= ${at}::timestamptz - interval '1 minute')`;
  }
}
