/**
 * The types of the values Sealpost stores in Deno KV, next to the key builders' sections of
 * src/store/keys.ts (which re-exports them).
 *
 * @module
 */
import type { EnvelopeHeader } from "./ports/envelopes.ts";
import type { SegmentRef } from "./segments.ts";

/** A registered user of the relay. */
export interface UserRow {
  id: string;
  name: string;
  createdAt: string;
}

/** An API token: only the SHA-256 of its secret part is kept. */
export interface TokenRow {
  id: string;
  kind: "owner" | "admin";
  /** Owner tokens act for this user; admin tokens have none. */
  userId: string | null;
  /** Lowercase hex SHA-256 of the secret part. */
  secretHash: string;
  createdAt: string;
}

/** A database: one recipient X25519 key of a user. */
export interface DatabaseRow {
  id: string;
  userId: string;
  name: string;
  /** Standard base64 of the 32-byte X25519 public key. */
  publicKey: string;
  /** Lowercase hex SHA-256 of the raw public key: the routing key. */
  fingerprint: string;
  createdAt: string;
}

/** A pending proof-of-possession challenge for a recipient key. */
export interface ChallengeRow {
  id: string;
  userId: string;
  name: string;
  publicKey: string;
  fingerprint: string;
  /** Lowercase hex SHA-256 of the challenge secret. */
  answerHash: string;
  expiresAt: number;
}

/** Why and since when a published form takes no submissions (its owner closed it). */
export interface FormClosure {
  /** The owner's words to senders, plain text ("" for none). */
  message: string;
  closedAt: string;
}

/** A published form manifest. */
export interface FormRow {
  formId: string;
  userId: string;
  fingerprint: string;
  publicKey: string;
  schemaVersion: number;
  manifest: Record<string, unknown>;
  publishedAt: string;
  /** Set while the owner has the form closed: intake answers 410 `form_closed`. */
  closed?: FormClosure;
}

/** The head record of a submission (all versions share it). */
export interface SubmissionRow {
  id: string;
  formId: string;
  /** Fingerprint of the recipient key of the latest version. */
  fingerprint: string;
  createdAt: string;
  /** Latest version number; 1 is the original, 2+ are amendments. */
  version: number;
  /** SHA-256 (hex) of the original envelope, for idempotent replays of the POST. */
  digest: string;
  /** SHA-256 (hex) of the latest version's envelope, for idempotent replays of an amend. */
  latestDigest: string;
}

/**
 * A queued envelope version, in its recipient's queue (ordered by `seq`). Stored, like the
 * submission head, in the compact encoding of src/store/kv/envelope_rows.ts.
 */
export interface QueueRow extends EnvelopeHeader {
  /** Where the sealed box lies in the segment files (src/store/segments.ts). */
  ref: SegmentRef;
}

// ---------------------------------------------------------------------------------------------
// Webhooks (src/webhooks): outbound configurations, deliveries, attempts, failure flags.
// Everything lives under the "webhooks" root; owner-side data, never exported.
// ---------------------------------------------------------------------------------------------

/** The body format of a webhook configuration. */
export type WebhookMode = "default" | "json_template" | "xml_template" | "form";

/** A record event kind an outbound configuration can fire on. */
export type WebhookEvent = "create" | "update" | "delete";

/** An outbound webhook configuration of a form (secrets in clear: owner-side store only). */
export interface WebhookConfigRow {
  id: string;
  formId: string;
  name: string;
  url: string;
  method: "POST" | "PUT" | "PATCH";
  mode: WebhookMode;
  /** The owner's template (template modes only). */
  template: string | null;
  bearer: string | null;
  /** Custom headers, in the order configured. */
  headers: [name: string, value: string][];
  signingSecret: string | null;
  signatureHeader: string;
  /** Record field id to target key, in the order configured; empty means every field. */
  mappings: Record<string, string>;
  events: WebhookEvent[];
  /** Also send Standard Webhooks headers (needs a `whsec_` signing secret). */
  standardWebhooks: boolean;
  /** Requests in flight at once (1 to 64); null: the instance's `webhooks.concurrency_per_webhook`. */
  concurrency: number | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * The flag a configuration carries after a failure, until edited or retried; a `blocked` one
 * also clears itself once the configuration's events go through again.
 */
export interface WebhookFlagRow {
  /** When the latest failure happened. */
  at: string;
  /** The failed delivery; null when `blocked` (no delivery could be made yet). */
  deliveryId: string | null;
  /**
   * `permanent`: a 4xx or a refused address; `exhausted`: the retry schedule ran out;
   * `blocked`: an event could not become a delivery (its file URLs could not be made, e.g. the
   * relay refused the vault's token) and waits in the outbox, tried again every minute.
   */
  reason: "permanent" | "exhausted" | "blocked";
  /** When `blocked`: the event that waits (the flag goes once it goes through). */
  eventId?: string;
  status: number | null;
  error: string | null;
}

/** Where a delivery stands. */
export type WebhookDeliveryStatus = "pending" | "delivered" | "failed" | "skipped";

/** One record event going to one configuration; its body is rendered once, at creation. */
export interface WebhookDeliveryRow {
  id: string;
  webhookId: string;
  formId: string;
  eventId: string;
  recordId: string;
  reason: "insert" | "update" | "delete";
  savedAt: string;
  status: WebhookDeliveryStatus;
  contentType: string;
  /** Parts of a body too large for the ref under `webhookKeys.body` (0 otherwise). */
  bodyParts: number;
  bodyBytes: number;
  /** Attempts made so far, over every round (each logged under `webhookKeys.attempt`). */
  attempts: number;
  /** Index in the retry schedule of the next attempt (a manual retry starts over at 0). */
  round: number;
  /** Names the one attempt message that may act on this delivery; stale messages are dropped. */
  token: string;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  lastSnippet: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

/** The log of one HTTP attempt of a delivery. */
export interface WebhookAttemptRow {
  /** 1-based attempt number. */
  n: number;
  at: string;
  status: number | null;
  durationMs: number;
  outcome: "delivered" | "transient" | "permanent";
  error: string | null;
  /** At most 200 characters of the response body, newlines collapsed. */
  snippet: string | null;
  /** Wait asked for by a Retry-After header, in seconds. */
  retryAfterSeconds: number | null;
}

/**
 * The value of a `webhookKeys.deliveryWebhook` entry: the delivery's configuration, and its
 * body unless that is in parts. The body sits here, not in the delivery row, so that neither
 * entry outgrows what SQLite keeps in a B-tree page (about 1 KB with the key; more takes an
 * overflow page per write), and the row, rewritten by every attempt, stays small.
 */
export interface WebhookDeliveryRef {
  webhookId: string;
  /** The body, up to 16 KiB (else null, and parts). */
  body: Uint8Array | null;
}

/** The value of a `webhookKeys.pending` entry. */
export interface WebhookPendingRow {
  webhookId: string;
  /** Epoch milliseconds. */
  dueAt: number;
}

// ---------------------------------------------------------------------------------------------
// Vault (src/vault): the owner's databases, forms and their archived schema versions, records,
// quarantine. Everything lives under the "vault" root; owner-side data.
// ---------------------------------------------------------------------------------------------

/** A database as the vault knows it: the relay's database id and the key's fingerprint. */
export interface VaultDatabaseRow {
  /** The database id the relay assigned at registration. */
  id: string;
  /** The vault user (owner token's user) it belongs to. */
  userId: string;
  /** The relay user id its manifests name as `recipient.userId`. */
  relayUserId: string;
  name: string;
  /** Standard base64 of the X25519 public key; the private key is a file (see vault/keys.ts). */
  publicKey: string;
  fingerprint: string;
  createdAt: string;
}

/** A form of the vault: its current and published schema versions. */
export interface VaultFormRow {
  formId: string;
  userId: string;
  databaseId: string;
  /** The newest archived schema version. */
  schemaVersion: number;
  /** The schema version last published to the relay, or null. */
  publishedVersion: number | null;
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** Records older than this many days (by creation) are deleted; null: kept. */
  retentionDays: number | null;
  /** Set while the owner has the form closed (the relay refuses its submissions). */
  closed?: FormClosure;
  /**
   * When the owner deleted the form: it is unpublished and out of the form list; its records
   * stay until the owner deletes them.
   */
  deletedAt?: string;
}

/** One archived schema version of a form; kept forever. */
export interface VaultFormVersionRow {
  formId: string;
  schemaVersion: number;
  title: string;
  /** Field definitions (src/forms/fields.ts), as JSON data. */
  fields: Record<string, unknown>[];
  /** Origins whose pages may submit (the manifest's `allowedOrigins`); absent: any. */
  allowedOrigins?: string[];
  /** The form page's submit button label (the manifest's `submitLabel`); absent: "Submit". */
  submitLabel?: string;
  /** How senders handle files (the manifest's `files`); absent: "plain". */
  files?: "encrypted";
  /** Whether the form page may keep encrypted drafts (the manifest's `drafts`); absent: no. */
  drafts?: true;
  createdAt: string;
}

/** A record's head, with its values inline or as a large value under `vaultKeys.recordValues`. */
export interface VaultRecordRow {
  recordId: string;
  formId: string;
  /** The schema version its values were validated against. */
  schemaVersion: number;
  /** `yyyy-MM-ddTHH:mm:ss.fffffff+00:00` of the latest change. */
  savedAt: string;
  createdAt: string;
  /** The submission it came from (null for records the owner created). */
  submissionId: string | null;
  /** The newest submission version applied (0 for owner-created records). */
  appliedVersion: number;
  /** The values, when small enough to live in this row (else absent, and parts). */
  values?: Record<string, unknown>;
  /** Parts of larger values under `vaultKeys.recordValues` (0 when inline). */
  parts: number;
  /** Hashes of the owned files its values refer to (claimed for it at the relay). */
  files?: string[];
  /**
   * When a submission's record was deleted: the head stays as a tombstone (no values) so a late
   * re-delivery of the same envelope cannot bring the record back. Absent on live records.
   */
  deletedAt?: string;
}

/** Owned files of a record to release at the relay (written with the change that dropped them). */
export interface VaultFileReleaseRow {
  formId: string;
  recordId: string;
  hashes: string[];
}

/** One saved version of a record: what an insert or an update (amendment) wrote. */
export interface VaultRecordVersionRow {
  savedAt: string;
  reason: "insert" | "update";
  schemaVersion: number;
  /** The submission version applied (1 the original, 2+ amendments; 0 owner-made). */
  submissionVersion: number;
  /** The values, or null when they were too large to keep a second copy of. */
  values: Record<string, unknown> | null;
}

/** An envelope version the vault could not turn into a record; kept until retried. */
export interface VaultQuarantineRow {
  /** `{submissionId}.{version}` */
  id: string;
  databaseId: string;
  fingerprint: string;
  submissionId: string;
  version: number;
  formId: string;
  /** The payload's formVersion, when it could be read. */
  formVersion: number | null;
  /** Machine-readable reason, e.g. `unknown_form_version`, `invalid_values`. */
  code: string;
  /** What went wrong, for the owner. */
  reason: string;
  receivedAt: string;
  quarantinedAt: string;
  /** Parts of the sealed box under `vaultKeys.quarantineData`. */
  parts: number;
}

// ---------------------------------------------------------------------------------------------
// Blobs (src/blobs): metadata of uploaded files, per-user usage, the unclaimed index.
// The bytes live on disk under <data_dir>/blobs/; everything here is under the "blobs" root.
// ---------------------------------------------------------------------------------------------

/** Metadata of one stored blob (its bytes are in the blob store under the same key). */
export interface BlobMetaRow {
  userId: string;
  /** Lowercase hex SHA-256 of the bytes. */
  hash: string;
  /** The media type signed into the upload URL; null when the slot gave none. */
  mime: string | null;
  sizeBytes: number;
  /** When the bytes were last uploaded (a re-upload of an unclaimed blob moves it). */
  uploadedAt: string;
  /** When the owner claimed it; unclaimed blobs are deleted after the orphan grace. */
  claimedAt: string | null;
  /**
   * Claims held (one `blobKeys.claim` row per claimant, e.g. per record); the blob is
   * unclaimed again, and the orphan sweep's after the grace, once the last one is released.
   */
  claims: number;
}

/** What a user's blobs take up, kept in step with the metadata rows. */
export interface BlobUsageRow {
  bytes: number;
  count: number;
}

// ---------------------------------------------------------------------------------------------
// Console (src/console): the owner console's server-side sessions. Under the "console" root.
// ---------------------------------------------------------------------------------------------

/** A signed-in console session; the cookie holds a secret whose SHA-256 names the row. */
export interface ConsoleSessionRow {
  /** The owner's user id (the vault user of the token). */
  userId: string;
  /** The owner token it was made from; the session ends when that token is revoked. */
  tokenId: string;
  /** The CSRF token every state-changing request of this session must carry. */
  csrf: string;
  /** Epoch milliseconds of sign-in (the absolute expiry counts from here). */
  createdAt: number;
  /** Epoch milliseconds of the latest request (the idle expiry counts from here). */
  seenAt: number;
}
