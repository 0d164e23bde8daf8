/**
 * The vault's ports on PostgreSQL, for the store bundle (src/store/ports/bundle.ts). Every
 * guarantee holds with several vault workers on one database (row locks, unique keys,
 * conditional updates; nothing kept in a process decides a write).
 *
 * @module
 */
import type { VaultPorts } from "../ports/bundle.ts";
import { PgAudit } from "./audit.ts";
import type { Sql } from "./db.ts";
import { PgFileReleases } from "./file_releases.ts";
import { PgForms } from "./forms.ts";
import { PgMemberships } from "./memberships.ts";
import { PgPeople } from "./people.ts";
import { PgPersonTokens } from "./person_tokens.ts";
import { PgQuarantine } from "./quarantine.ts";
import { PgRecords } from "./records.ts";
import { PgSessions } from "./sessions.ts";
import { PgTickets } from "./tickets.ts";
import { PgSignInFactors } from "./sign_in_factors.ts";
import { PgVaultDatabases } from "./vault_databases.ts";

/**
 * The vault's ports over one PostgreSQL pool (migrated: src/store/pg/migrate.ts).
 *
 * @example
 * ```ts
 * const sql = openPg(url);
 * await migratePg(sql);
 * const vault = new Vault(vaultPgPorts(sql), keys, link, options);
 * ```
 */
export function vaultPgPorts(sql: Sql): VaultPorts {
  return {
    forms: new PgForms(sql),
    records: new PgRecords(sql),
    quarantine: new PgQuarantine(sql),
    vaultDatabases: new PgVaultDatabases(sql),
    fileReleases: new PgFileReleases(sql),
    sessions: new PgSessions(sql),
    people: new PgPeople(sql),
    memberships: new PgMemberships(sql),
    personTokens: new PgPersonTokens(sql),
    tickets: new PgTickets(sql),
    signInFactors: new PgSignInFactors(sql),
    audit: new PgAudit(sql),
  };
}
