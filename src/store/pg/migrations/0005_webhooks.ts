import type { PgMigration } from "../migrate.ts";

/**
 * Webhook configurations and flags, deliveries with their bodies and attempts, the schedule
 * rows any vault worker claims, and the claims of record events (the outbox itself,
 * `vault_record_events`, is the vault's, migration 4). Rows are `json`, not `jsonb`: kept as
 * written, key order included (a configuration's mappings are in the order configured); ids
 * and times sort bytewise (`collate "C"`), as Deno KV's keys do.
 */
export const webhooks: PgMigration = {
  version: 5,
  name: "webhooks",
  sql: `
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
