import type { PgMigration } from "../migrate.ts";

/**
 * The people of issue 29 (src/store/pg/{people,memberships,person_tokens,tickets}.ts):
 *
 * - `people`: persons; the unique `email` (lowercase, "C" collation: listed in byte order, as
 *   on Deno KV) decides between two people made with one email at once.
 * - `memberships`: a person's role on a database, keyed by both; the last-owner rule holds in
 *   the transaction of every write, which locks the database's owner rows `for update`.
 * - `person_tokens`: people's API tokens (the SHA-256 of the secret, never the secret).
 * - `tickets`: one-time links and challenges by the SHA-256 of their secret; consuming one is
 *   a `delete … returning` of an unexpired row (of two consumers, one deletes it).
 */
export const people: PgMigration = {
  version: 2,
  name: "people",
  sql: `
    create table people (
      id text collate "C" primary key,
      email text collate "C" not null unique,
      name text not null,
      password_hash text,
      instance_admin boolean not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create table memberships (
      database_id text collate "C" not null,
      person_id text collate "C" not null,
      role text not null check (role in ('owner', 'editor', 'viewer')),
      since timestamptz not null,
      primary key (database_id, person_id)
    );
    create index memberships_of_person on memberships (person_id, database_id);
    create table person_tokens (
      id text collate "C" primary key,
      person_id text collate "C" not null,
      name text not null,
      scopes jsonb not null,
      secret_hash text not null,
      created_at timestamptz not null,
      expires_at timestamptz,
      last_used_at timestamptz
    );
    create index person_tokens_of_person on person_tokens (person_id, created_at);
    create table tickets (
      id_hash text collate "C" primary key,
      kind text not null,
      person_id text collate "C",
      data jsonb not null,
      expires_at_ms bigint not null
    );
    create index tickets_by_expiry on tickets (expires_at_ms);
  `,
};
