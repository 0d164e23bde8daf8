import type { PgMigration } from "../migrate.ts";

/**
 * A published form's closure (src/store/rows.ts `FormClosure`): null while the form takes
 * submissions, else the owner's message and when it was closed, as `json` kept as written.
 */
export const formClosure: PgMigration = {
  version: 6,
  name: "form_closure",
  sql: `
    alter table relay_forms add column closed json;
  `,
};
