/**
 * The vault's ports on Deno KV, for the `Store` bundle (src/store/index.ts).
 *
 * @module
 */
import type { FileReleasesPort } from "../ports/file_releases.ts";
import type { FormsPort } from "../ports/forms.ts";
import type { QuarantinePort } from "../ports/quarantine.ts";
import type { RecordsPort } from "../ports/records.ts";
import type { SessionsPort } from "../ports/sessions.ts";
import type { VaultDatabasesPort } from "../ports/vault_databases.ts";
import { KvFileReleases } from "./file_releases.ts";
import { KvForms } from "./forms.ts";
import { KvQuarantine } from "./quarantine.ts";
import { KvRecords } from "./records.ts";
import { KvSessions } from "./sessions.ts";
import { KvVaultDatabases } from "./vault_databases.ts";

/** The vault's storage: what src/vault and src/console take instead of a `Deno.Kv`. */
export interface VaultPorts {
  forms: FormsPort;
  records: RecordsPort;
  quarantine: QuarantinePort;
  vaultDatabases: VaultDatabasesPort;
  fileReleases: FileReleasesPort;
  sessions: SessionsPort;
}

/**
 * The vault's ports over one Deno KV store.
 *
 * @example
 * ```ts
 * const vault = new Vault(vaultKvPorts(kv), keys, link, options);
 * ```
 */
export function vaultKvPorts(kv: Deno.Kv): VaultPorts {
  return {
    forms: new KvForms(kv),
    records: new KvRecords(kv),
    quarantine: new KvQuarantine(kv),
    vaultDatabases: new KvVaultDatabases(kv),
    fileReleases: new KvFileReleases(kv),
    sessions: new KvSessions(kv),
  };
}
