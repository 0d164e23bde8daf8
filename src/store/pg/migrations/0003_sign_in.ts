import type { PgMigration } from "../migrate.ts";

/**
 * Sign-in factors (src/store/pg/sign_in_factors.ts): passkeys by credential id (the counter
 * in its own column, moved only upward by a conditional update), a TOTP factor per person
 * (`last_step` likewise), and one row per unused recovery code (used: deleted).
 */
export const signIn: PgMigration = {
  version: 3,
  name: "sign_in",
  sql: `
    create table vault_passkeys (
      credential_id text collate "C" primary key,
      person_id text collate "C" not null,
      counter bigint not null,
      last_used_at text,
      data jsonb not null
    );
    create index vault_passkeys_by_person on vault_passkeys (person_id);
    create table vault_totp_factors (
      person_id text collate "C" primary key,
      secret text not null,
      last_step bigint,
      created_at text not null
    );
    create table vault_recovery_codes (
      person_id text collate "C" not null,
      code_hash text collate "C" not null,
      primary key (person_id, code_hash)
    );
  `,
};
