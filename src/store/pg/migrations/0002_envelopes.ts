import type { PgMigration } from "../migrate.ts";

/**
 * The relay's submissions (heads: idempotency, edit window, latest version) and recipients'
 * envelope queues (src/store/pg/envelopes.ts). `relay_queue_heads` holds each recipient's
 * last queue position: updated in every writing transaction, its row lock orders positions
 * by commit. Sealed boxes do not compress: stored without trying.
 */
export const envelopes: PgMigration = {
  version: 2,
  name: "envelopes",
  sql: `
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
  `,
};
