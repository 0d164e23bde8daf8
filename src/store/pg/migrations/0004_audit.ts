import type { PgMigration } from "../migrate.ts";

/**
 * The audit log (src/store/pg/audit.ts): `audit_entries`, one row per kept entry (its filters
 * as columns, the entry as `json`, kept as written), and `audit_state`, one row holding the
 * head and the checkpoint of the last prune. Every append and prune locks that row, so appends
 * from every process get gapless increasing `seq`.
 */
export const audit: PgMigration = {
  version: 4,
  name: "audit",
  sql: `
    create table audit_entries (
      seq bigint primary key,
      person_id text collate "C",
      database_id text collate "C",
      action text collate "C" not null,
      entry json not null
    );
    create index audit_entries_person on audit_entries (person_id, seq);
    create index audit_entries_database on audit_entries (database_id, seq);
    create index audit_entries_action on audit_entries (action, seq);
    create table audit_state (
      id integer primary key check (id = 1),
      head_seq bigint,
      head_hash text,
      checkpoint json
    );
    insert into audit_state (id) values (1);
  `,
};
