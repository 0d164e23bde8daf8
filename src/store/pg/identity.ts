/**
 * The identity port on PostgreSQL: `relay_users`, `relay_tokens`, `relay_databases` (whose
 * unique `fingerprint` is the routing index) and `relay_challenges` (expired rows are dropped
 * as new ones are saved).
 *
 * @module
 */
import type {
  ApiToken,
  IdentityPort,
  KeyChallenge,
  RecipientRoute,
  RegistrationOutcome,
  RelayDatabase,
  User,
} from "../ports/identity.ts";
import type { Sql, Tx } from "./db.ts";

/** Thrown inside a registration's transaction to roll it back: someone else routed the key. */
class KeyRegistered extends Error {}

const iso = (at: Date) => at.toISOString();

interface UserColumns {
  id: string;
  name: string;
  created_at: Date;
}

interface TokenColumns {
  id: string;
  kind: ApiToken["kind"];
  user_id: string | null;
  secret_hash: string;
  created_at: Date;
}

/** What a database and a challenge for it share. */
interface KeyColumns {
  id: string;
  user_id: string;
  name: string;
  public_key: string;
  fingerprint: string;
}

interface DatabaseColumns extends KeyColumns {
  created_at: Date;
}

interface ChallengeColumns extends KeyColumns {
  answer_hash: string;
  expires_at_ms: number;
}

function tokenOf(r: TokenColumns): ApiToken {
  return {
    id: r.id,
    kind: r.kind,
    userId: r.user_id,
    secretHash: r.secret_hash,
    createdAt: iso(r.created_at),
  };
}

function databaseOf(r: DatabaseColumns): RelayDatabase {
  return {
    id: r.id,
    userId: r.user_id,
    name: r.name,
    publicKey: r.public_key,
    fingerprint: r.fingerprint,
    createdAt: iso(r.created_at),
  };
}

async function insertToken(sql: Sql | Tx, t: ApiToken): Promise<void> {
  await sql`
    insert into relay_tokens (id, kind, user_id, secret_hash, created_at)
    values (${t.id}, ${t.kind}, ${t.userId}, ${t.secretHash}, ${t.createdAt})
    on conflict (id) do update set kind = excluded.kind, user_id = excluded.user_id,
      secret_hash = excluded.secret_hash, created_at = excluded.created_at`;
}

/**
 * Users, tokens, databases and challenges in PostgreSQL; every guarantee holds across
 * processes sharing the database (unique keys decide every race).
 *
 * @example
 * ```ts
 * const identity = new PgIdentity(sql);
 * const user = await identity.getUser("3f2a9c0d1e4b5a69");
 * ```
 */
export class PgIdentity implements IdentityPort {
  constructor(private readonly sql: Sql) {}

  async createUser(user: User, token: ApiToken): Promise<boolean> {
    return await this.sql.begin(async (tx) => {
      const created = await tx`
        insert into relay_users (id, name, created_at)
        values (${user.id}, ${user.name}, ${user.createdAt})
        on conflict (id) do nothing returning id`;
      if (created.length === 0) return false;
      await insertToken(tx, token);
      return true;
    });
  }

  async saveToken(token: ApiToken): Promise<void> {
    await insertToken(this.sql, token);
  }

  async deleteToken(tokenId: string): Promise<void> {
    await this.sql`delete from relay_tokens where id = ${tokenId}`;
  }

  async getToken(tokenId: string): Promise<ApiToken | null> {
    const [row] = await this.sql<TokenColumns[]>`
      select id, kind, user_id, secret_hash, created_at from relay_tokens where id = ${tokenId}`;
    return row ? tokenOf(row) : null;
  }

  async getUser(userId: string): Promise<User | null> {
    const [row] = await this.sql<UserColumns[]>`
      select id, name, created_at from relay_users where id = ${userId}`;
    return row ? { id: row.id, name: row.name, createdAt: iso(row.created_at) } : null;
  }

  async listDatabases(userId: string): Promise<RelayDatabase[]> {
    const rows = await this.sql<DatabaseColumns[]>`
      select id, user_id, name, public_key, fingerprint, created_at from relay_databases
      where user_id = ${userId} order by id`;
    return rows.map(databaseOf);
  }

  async recipientOwner(fingerprint: string): Promise<RecipientRoute | null> {
    const [row] = await this.sql<{ user_id: string; id: string }[]>`
      select user_id, id from relay_databases where fingerprint = ${fingerprint}`;
    return row ? { userId: row.user_id, dbId: row.id } : null;
  }

  async listRecipients(): Promise<string[]> {
    const rows = await this.sql<{ fingerprint: string }[]>`
      select fingerprint from relay_databases order by fingerprint`;
    return rows.map((row) => row.fingerprint);
  }

  async saveChallenge(c: KeyChallenge): Promise<void> {
    await this.sql.begin(async (tx) => {
      await tx`delete from relay_challenges where expires_at_ms < ${Date.now()}`;
      await tx`
        insert into relay_challenges
          (id, user_id, name, public_key, fingerprint, answer_hash, expires_at_ms)
        values (${c.id}, ${c.userId}, ${c.name}, ${c.publicKey}, ${c.fingerprint},
          ${c.answerHash}, ${c.expiresAt})
        on conflict (id) do update set user_id = excluded.user_id, name = excluded.name,
          public_key = excluded.public_key, fingerprint = excluded.fingerprint,
          answer_hash = excluded.answer_hash, expires_at_ms = excluded.expires_at_ms`;
    });
  }

  async getChallenge(challengeId: string): Promise<KeyChallenge | null> {
    const [r] = await this.sql<ChallengeColumns[]>`
      select id, user_id, name, public_key, fingerprint, answer_hash, expires_at_ms
      from relay_challenges where id = ${challengeId} and expires_at_ms >= ${Date.now()}`;
    if (!r) return null;
    return {
      id: r.id,
      userId: r.user_id,
      name: r.name,
      publicKey: r.public_key,
      fingerprint: r.fingerprint,
      answerHash: r.answer_hash,
      expiresAt: r.expires_at_ms,
    };
  }

  async completeRegistration(c: KeyChallenge, db: RelayDatabase): Promise<RegistrationOutcome> {
    const routed = async () => (await this.recipientOwner(db.fingerprint)) !== null;
    if (await routed()) return "key_registered";
    try {
      return await this.sql.begin(async (tx) => {
        // The challenge is consumed only as stored (a row locked by another completion is
        // waited for, and is gone after it commits).
        const consumed = await tx`
          delete from relay_challenges
          where id = ${c.id} and user_id = ${c.userId} and name = ${c.name}
            and public_key = ${c.publicKey} and fingerprint = ${c.fingerprint}
            and answer_hash = ${c.answerHash} and expires_at_ms = ${c.expiresAt}
          returning id`;
        if (consumed.length === 0) return "challenge_gone" as const;
        // The unique fingerprint decides between registrations of one key in any process.
        const stored = await tx`
          insert into relay_databases (user_id, id, name, public_key, fingerprint, created_at)
          values (${db.userId}, ${db.id}, ${db.name}, ${db.publicKey}, ${db.fingerprint},
            ${db.createdAt})
          on conflict do nothing returning id`;
        if (stored.length === 0) throw new KeyRegistered();
        return "registered" as const;
      }).then(async (outcome) =>
        // A consumed challenge loses to a key registered meanwhile (as before the write).
        outcome === "challenge_gone" && await routed() ? "key_registered" : outcome
      );
    } catch (err) {
      if (err instanceof KeyRegistered) return "key_registered";
      throw err;
    }
  }
}
