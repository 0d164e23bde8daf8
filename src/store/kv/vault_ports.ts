/**
 * The vault's ports on Deno KV, for the store bundle (src/store/ports/bundle.ts).
 *
 * @module
 */
import type { VaultPorts } from "../ports/bundle.ts";
import { KvAudit } from "./audit.ts";
import { RecordEventAnnouncer } from "../ports/record_events.ts";
import { KvFileReleases } from "./file_releases.ts";
import { KvForms } from "./forms.ts";
import { KvMemberships } from "./memberships.ts";
import { KvPeople } from "./people.ts";
import { KvPersonTokens } from "./person_tokens.ts";
import { KvQuarantine } from "./quarantine.ts";
import { KvRecords } from "./records.ts";
import { KvSessions } from "./sessions.ts";
import { KvTickets } from "./tickets.ts";
import { KvSignInFactors } from "./sign_in_factors.ts";
import { KvVaultDatabases } from "./vault_databases.ts";

/**
 * The vault's ports over one Deno KV store.
 *
 * @example
 * ```ts
 * const vault = new Vault(vaultKvPorts(kv), keys, link, options);
 * ```
 */
export function vaultKvPorts(kv: Deno.Kv, announcer = new RecordEventAnnouncer()): VaultPorts {
  return {
    forms: new KvForms(kv),
    records: new KvRecords(kv, announcer),
    quarantine: new KvQuarantine(kv),
    vaultDatabases: new KvVaultDatabases(kv),
    fileReleases: new KvFileReleases(kv),
    sessions: new KvSessions(kv),
    people: new KvPeople(kv),
    memberships: new KvMemberships(kv),
    personTokens: new KvPersonTokens(kv),
    tickets: new KvTickets(kv),
    signInFactors: new KvSignInFactors(kv),
    audit: new KvAudit(kv),
  };
}
