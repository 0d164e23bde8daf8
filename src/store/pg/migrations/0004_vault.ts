import type { PgMigration } from "../migrate.ts";

/**
 * The vault's tables (src/store/pg/vault_ports.ts): databases and facts, forms and their
 * archived versions, records (head rows; a submission's deleted record stays as a tombstone,
 * `deleted_at` set; `rev` from a sequence changes with every write, never repeating) with their
 * saved versions, pending file releases, quarantined envelopes,
 * console sessions, and the record events outbox that webhook delivery consumes. Keys sort
 * bytewise (`collate "C"`), as Deno KV's keys do; forms, their archived versions,
 * record values and record events are `json` (kept as written, key order included).
 */
export const vault: PgMigration = {
  version: 4,
  name: "vault",
  sql: `
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
  `,
};
