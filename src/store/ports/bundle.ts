/**
 * The ports of one store, grouped by the part of the program that uses them: what `serve`
 * opens once (on Deno KV or PostgreSQL) and hands to the relay, the vault and the webhook
 * engine. Backend-neutral: the implementations live in src/store/kv and src/store/pg.
 *
 * @module
 */

import type { AuditPort } from "./audit.ts";
import type { BlobMetaPort } from "./blob_meta.ts";
import type { EnvelopePort } from "./envelopes.ts";
import type { FileReleasesPort } from "./file_releases.ts";
import type { FormsPort } from "./forms.ts";
import type { IdentityPort } from "./identity.ts";
import type { ManifestPort } from "./manifests.ts";
import type { MembershipsPort } from "./memberships.ts";
import type { PeoplePort } from "./people.ts";
import type { PersonTokensPort } from "./person_tokens.ts";
import type { QuarantinePort } from "./quarantine.ts";
import type { RateLimitPort } from "./rate_limits.ts";
import type { RecordsPort } from "./records.ts";
import type { SessionsPort } from "./sessions.ts";
import type { TicketsPort } from "./tickets.ts";
import type { SignInFactorsPort } from "./sign_in_factors.ts";
import type { VaultDatabasesPort } from "./vault_databases.ts";
import type { WebhookPorts } from "./webhooks.ts";

/** The relay's aggregates. */
export interface RelayPorts {
  envelopes: EnvelopePort;
  identity: IdentityPort;
  manifests: ManifestPort;
  blobMeta: BlobMetaPort;
}

/** The vault's storage: what src/vault and src/console take instead of a store handle. */
export interface VaultPorts {
  forms: FormsPort;
  records: RecordsPort;
  quarantine: QuarantinePort;
  vaultDatabases: VaultDatabasesPort;
  fileReleases: FileReleasesPort;
  sessions: SessionsPort;
  people: PeoplePort;
  memberships: MembershipsPort;
  personTokens: PersonTokensPort;
  tickets: TicketsPort;
  signInFactors: SignInFactorsPort;
  /** The instance's audit log (src/audit). */
  audit: AuditPort;
}

/** The ports of one store, by the part of the program that uses them. */
export interface StorePorts {
  relay: RelayPorts;
  vault: VaultPorts;
  webhooks: WebhookPorts;
  /** The relay's rate-limit buckets (in memory on Deno KV; shared by every relay on PostgreSQL). */
  rateLimits: RateLimitPort;
  /** Waits for commits in flight and closes what the ports opened (not the store itself). */
  close(): Promise<void>;
}
