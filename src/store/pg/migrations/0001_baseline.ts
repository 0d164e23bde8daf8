import type { PgMigration } from "../migrate.ts";

/**
 * The PostgreSQL store's baseline: every table of Sealpost 0.1, the first release (later
 * migrations follow it, never edit it).
 *
 * - `sealpost_settings`: instance-wide settings every process of one database shares (the
 *   relay secret, …).
 * - The relay's submissions (heads: idempotency, edit window, latest version) and recipients'
 *   envelope queues (src/store/pg/envelopes.ts). `relay_queue_heads` holds each recipient's
 *   last queue position: updated in every writing transaction, its row lock orders positions
 *   by commit. Sealed boxes do not compress: stored without trying (`storage external`, set
 *   by `alter table`, as PostgreSQL 15's `create table` cannot).
 * - The relay's metadata: users, tokens, recipient databases (their unique fingerprint is the
 *   routing index), registration challenges, published forms (`closed`: null while the form
 *   takes submissions, else the owner's message and when it was closed), blob metadata with
 *   each user's usage and the claims records hold, and the rate-limit buckets every relay
 *   process shares.
 * - The vault's tables (src/store/pg/vault_ports.ts): databases and facts, forms and their
 *   archived versions, records (head rows; a submission's deleted record stays as a tombstone,
 *   `deleted_at` set; `rev` from a sequence changes with every write, never repeating) with
 *   their saved versions, pending file releases, quarantined envelopes, console sessions, and
 *   the record events outbox that webhook delivery consumes.
 * - Webhooks (src/store/pg/webhook_ports.ts): configurations and flags, deliveries with their
 *   bodies and attempts, the schedule rows any vault worker claims, and the claims of record
 *   events (the outbox itself is `vault_record_events`).
 *
 * Keys and ordered columns use the "C" collation: listings come in byte order, as on Deno KV.
 * Forms, their archived versions, record values, record events, webhook rows and a form's
 * closure are `json`, not `jsonb`: kept as written, key order included (a webhook
 * configuration's mappings are in the order configured).
 */
export const baseline: PgMigration = {
  version: 1,
  name: "baseline",
  sql: `
    create table sealpost_settings (
      name text primary key,
      value text not null,
      created_at timestamptz not null default now()
    );

    create table relay_submissions (
      id text primary key,
      form_id text not null,
      fingerprint text not null,
      created_at timestamptz not null,
      version integer not null,
      digest text not null,
      latest_digest text not null
    );
    create table relay_queue_heads (
      fingerprint text primary key,
      last_seq bigint not null
    );
    create table relay_queue (
      fingerprint text not null,
      seq bigint not null,
      submission_id text not null,
      version integer not null,
      form_id text not null,
      recipient_pubkey text not null,
      submitter_id text,
      received_at timestamptz not null,
      ciphertext bytea not null,
      lease_holder text,
      leased_until timestamptz,
      primary key (fingerprint, seq)
    );
    alter table relay_queue alter column ciphertext set storage external;

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
      published_at timestamptz not null,
      closed json
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

    create table vault_databases (
      id text collate "C" primary key,
      data jsonb not null
    );
    create table vault_facts (
      name text collate "C" primary key,
      value jsonb not null
    );
    create table vault_forms (
      form_id text collate "C" primary key,
      data json not null,
      rev bigint not null default 1
    );
    create table vault_form_versions (
      form_id text collate "C" not null,
      schema_version integer not null,
      data json not null,
      primary key (form_id, schema_version)
    );
    create sequence vault_record_revs;
    create table vault_records (
      form_id text collate "C" not null,
      record_id text collate "C" not null,
      schema_version integer not null,
      saved_at text collate "C" not null,
      created_at text collate "C" not null,
      submission_id text,
      applied_version integer not null,
      "values" json,
      value_bytes integer not null,
      files jsonb not null,
      deleted_at text,
      rev bigint not null default nextval('vault_record_revs'),
      primary key (form_id, record_id)
    );
    create index vault_records_by_time on vault_records (form_id, created_at, record_id)
      where deleted_at is null;
    create table vault_record_versions (
      form_id text collate "C" not null,
      record_id text collate "C" not null,
      saved_at text collate "C" not null,
      reason text not null,
      schema_version integer not null,
      submission_version integer not null,
      "values" json,
      primary key (form_id, record_id, saved_at)
    );
    create table vault_file_releases (
      id text collate "C" primary key,
      form_id text not null,
      record_id text not null,
      hashes jsonb not null
    );
    create table vault_quarantine (
      id text collate "C" primary key,
      data jsonb not null,
      quarantined_at text not null,
      box_bytes integer not null,
      box bytea not null
    );
    create table vault_console_sessions (
      id_hash text collate "C" primary key,
      user_id text collate "C" not null,
      data jsonb not null,
      seen_at bigint not null,
      expires_at timestamptz not null
    );
    create index vault_console_sessions_by_user on vault_console_sessions (user_id);
    create index vault_console_sessions_by_expiry on vault_console_sessions (expires_at);
    create table vault_record_events (
      event_id text primary key,
      event json not null,
      created_at timestamptz not null default now()
    );

    create table webhook_configs (
      id text collate "C" primary key,
      form_id text not null,
      created_at text collate "C" not null,
      config json not null
    );
    create index webhook_configs_form on webhook_configs (form_id, created_at);
    create table webhook_flags (
      webhook_id text primary key,
      flag json not null
    );
    create table webhook_purges (
      webhook_id text primary key,
      created_at timestamptz not null default now()
    );
    create table webhook_deliveries (
      id text collate "C" primary key,
      webhook_id text not null,
      event_id text not null,
      status text not null,
      revision bigint not null default 1,
      failed boolean not null default false,
      due_at bigint,
      delivery json not null,
      body bytea,
      unique (event_id, webhook_id)
    );
    create index webhook_deliveries_of on webhook_deliveries (webhook_id, id);
    create index webhook_deliveries_failed on webhook_deliveries (webhook_id, id) where failed;
    create index webhook_deliveries_due on webhook_deliveries (due_at, id)
      where due_at is not null;
    create table webhook_attempts (
      delivery_id text not null references webhook_deliveries (id) on delete cascade,
      n integer not null,
      attempt json not null,
      primary key (delivery_id, n)
    );
    create table webhook_schedule (
      id bigint generated always as identity primary key,
      delivery_id text not null,
      webhook_id text not null,
      token text not null,
      run_at bigint not null,
      holder text
    );
    create index webhook_schedule_run on webhook_schedule (run_at);
    create index webhook_schedule_delivery on webhook_schedule (delivery_id);
    create table webhook_event_claims (
      event_id text primary key,
      holder text not null,
      until bigint not null
    );
    create index webhook_event_claims_until on webhook_event_claims (until);
  `,
};
