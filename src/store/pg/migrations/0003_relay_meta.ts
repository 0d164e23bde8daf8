import type { PgMigration } from "../migrate.ts";

/**
 * The relay's metadata: users, tokens, recipient databases (their unique fingerprint is the
 * routing index), registration challenges, published forms, blob metadata with each user's
 * usage and the claims records hold, and the rate-limit buckets every relay process shares.
 * Keys and ordered columns use the "C" collation: listings come in byte order, as on Deno KV.
 */
export const relayMeta: PgMigration = {
  version: 3,
  name: "relay_meta",
  sql: `
    create table relay_users (
      id text collate "C" primary key,
      name text not null,
      created_at timestamptz not null
    );
    create table relay_tokens (
      id text collate "C" primary key,
      kind text not null check (kind in ('owner', 'admin')),
      user_id text collate "C",
      secret_hash text not null,
      created_at timestamptz not null
    );
    create table relay_databases (
      user_id text collate "C" not null,
      id text collate "C" not null,
      name text not null,
      public_key text not null,
      fingerprint text collate "C" not null unique,
      created_at timestamptz not null,
      primary key (user_id, id)
    );
    create table relay_challenges (
      id text collate "C" primary key,
      user_id text collate "C" not null,
      name text not null,
      public_key text not null,
      fingerprint text collate "C" not null,
      answer_hash text not null,
      expires_at_ms bigint not null
    );
    create index relay_challenges_expiry on relay_challenges (expires_at_ms);
    create table relay_forms (
      form_id text collate "C" primary key,
      user_id text collate "C" not null,
      fingerprint text collate "C" not null,
      public_key text not null,
      schema_version integer not null,
      manifest json not null,
      published_at timestamptz not null
    );
    create table relay_blobs (
      user_id text collate "C" not null,
      hash text collate "C" not null,
      mime text,
      size_bytes bigint not null check (size_bytes >= 0),
      uploaded_at_ms bigint not null,
      claimed_at_ms bigint,
      claims integer not null default 0 check (claims >= 0),
      primary key (user_id, hash)
    );
    create index relay_blobs_unclaimed on relay_blobs (uploaded_at_ms, user_id, hash)
      where claims = 0;
    create table relay_blob_usage (
      user_id text collate "C" primary key,
      bytes bigint not null check (bytes >= 0),
      count bigint not null check (count >= 0)
    );
    create table relay_blob_claims (
      user_id text collate "C" not null,
      hash text collate "C" not null,
      claimant text collate "C" not null,
      primary key (user_id, hash, claimant),
      foreign key (user_id, hash) references relay_blobs on delete cascade
    );
    create table relay_rate_buckets (
      family text collate "C" not null,
      key text collate "C" not null,
      tokens double precision not null,
      updated_ms double precision not null,
      full_at_ms double precision not null,
      primary key (family, key)
    );
    create index relay_rate_buckets_full on relay_rate_buckets (full_at_ms);
  `,
};
