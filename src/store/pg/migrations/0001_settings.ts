import type { PgMigration } from "../migrate.ts";

/** Instance-wide settings every process of one database shares (the relay secret, …). */
export const settings: PgMigration = {
  version: 1,
  name: "settings",
  sql: `
    create table sealpost_settings (
      name text primary key,
      value text not null,
      created_at timestamptz not null default now()
    );
  `,
};
