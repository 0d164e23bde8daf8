/**
 * The layout of every Deno KV key Sealpost writes, in one module.
 *
 * @module
 */

const HEX = /^(?:[0-9a-f]{2})+$/;

/**
 * A key part for a lowercase hex id (submission id, fingerprint): its bytes, half the size of
 * the text; any other string as it is (the two never collide: bytes and strings differ in type).
 *
 * @example
 * ```ts
 * hexPart("0a1b"); // Uint8Array [0x0a, 0x1b]
 * hexPart("fp"); // "fp"
 * ```
 */
export function hexPart(value: string): string | Uint8Array {
  return HEX.test(value) ? Uint8Array.fromHex(value) : value;
}

/** Key builders, grouped by concern. */
export const keys = {
  user: (userId: string) => ["users", userId] as const,
  token: (tokenId: string) => ["tokens", tokenId] as const,
  database: (userId: string, dbId: string) => ["databases", userId, dbId] as const,
  databasesOf: (userId: string) => ["databases", userId] as const,
  /** fingerprint → {userId, dbId}: the identity registry's routing index. */
  recipient: (fingerprint: string) => ["recipients", fingerprint] as const,
  recipientsAll: () => ["recipients"] as const,
  challenge: (id: string) => ["challenges", id] as const,
  form: (formId: string) => ["forms", formId] as const,
  /** A submission's head, encoded by src/store/kv/envelope_rows.ts. */
  submission: (id: string) => ["submissions", hexPart(id)] as const,
  /** The per-recipient queue of envelopes, ordered by `seq` (rows: src/store/kv/envelope_rows.ts). */
  queue: (fingerprint: string, seq: number) => ["queue", hexPart(fingerprint), seq] as const,
  queueOf: (fingerprint: string) => ["queue", hexPart(fingerprint)] as const,
  /** The recipient key (base64 string) that a queue's rows leave out when theirs is the same. */
  queueKey: (fingerprint: string) => ["queue_keys", hexPart(fingerprint)] as const,
  /** Snapshot parts of a record event (see record_events.ts). */
  recordEvent: (eventId: string) => ["record_events", eventId] as const,
  recordEventsAll: () => ["record_events"] as const,
  /** Live references into segment file `id` (a `Deno.KvU64`; see src/store/kv/segments.ts). */
  segment: (id: number) => ["segments", id] as const,
  /** The layout version of the whole store (a number; see src/store/kv/schema.ts). */
  schemaVersion: () => ["meta", "schema_version"] as const,
};

// ---------------------------------------------------------------------------------------------
// Webhooks (src/webhooks): outbound configurations, deliveries, attempts, failure flags.
// Everything lives under the "webhooks" root; owner-side data, never exported.
// ---------------------------------------------------------------------------------------------

/** Key builders of the webhooks feature. */
export const webhookKeys = {
  config: (formId: string, webhookId: string) =>
    ["webhooks", "configs", formId, webhookId] as const,
  configsOf: (formId: string) => ["webhooks", "configs", formId] as const,
  /** webhookId → formId. */
  configForm: (webhookId: string) => ["webhooks", "config_forms", webhookId] as const,
  flag: (webhookId: string) => ["webhooks", "flags", webhookId] as const,
  flagsAll: () => ["webhooks", "flags"] as const,
  /** A configuration's deliveries, oldest first (delivery ids sort by save time). */
  delivery: (webhookId: string, deliveryId: string) =>
    ["webhooks", "deliveries", webhookId, deliveryId] as const,
  deliveriesOf: (webhookId: string) => ["webhooks", "deliveries", webhookId] as const,
  /** deliveryId → a {@linkcode WebhookDeliveryRef}. */
  deliveryWebhook: (deliveryId: string) => ["webhooks", "delivery_webhooks", deliveryId] as const,
  /** Attempt `n` (1-based) of a delivery: a {@linkcode WebhookAttempt}, written once. */
  attempt: (deliveryId: string, n: number) => ["webhooks", "attempts", deliveryId, n] as const,
  attemptsOf: (deliveryId: string) => ["webhooks", "attempts", deliveryId] as const,
  /** Body part `index` of a delivery (raw bytes). */
  body: (deliveryId: string, index: number) => ["webhooks", "bodies", deliveryId, index] as const,
  /** The parts of a delivery's body (src/store/kv/parts.ts). */
  bodyOf: (deliveryId: string) => ["webhooks", "bodies", deliveryId] as const,
  /** A configuration's failed deliveries. */
  failed: (webhookId: string, deliveryId: string) =>
    ["webhooks", "failed", webhookId, deliveryId] as const,
  failedOf: (webhookId: string) => ["webhooks", "failed", webhookId] as const,
  failedAll: () => ["webhooks", "failed"] as const,
  /** Pending deliveries and when their next attempt is due, for recovery sweeps. */
  pending: (deliveryId: string) => ["webhooks", "pending", deliveryId] as const,
  pendingAll: () => ["webhooks", "pending"] as const,
  /** A removed configuration whose deliveries are still being deleted. */
  purge: (webhookId: string) => ["webhooks", "purges", webhookId] as const,
  purgesAll: () => ["webhooks", "purges"] as const,
};

// ---------------------------------------------------------------------------------------------
// Vault (src/vault): the owner's databases, forms and their archived schema versions, records,
// quarantine. Everything lives under the "vault" root; owner-side data.
// ---------------------------------------------------------------------------------------------

/** Key builders of the vault. */
export const vaultKeys = {
  database: (dbId: string) => ["vault", "databases", dbId] as const,
  databases: () => ["vault", "databases"] as const,
  form: (formId: string) => ["vault", "forms", formId] as const,
  forms: () => ["vault", "forms"] as const,
  formVersion: (formId: string, version: number) =>
    ["vault", "form_versions", formId, version] as const,
  formVersions: (formId: string) => ["vault", "form_versions", formId] as const,
  /** Records of a form, by record id (a submission's record id is its submission id). */
  record: (formId: string, recordId: string) => ["vault", "records", formId, recordId] as const,
  records: (formId: string) => ["vault", "records", formId] as const,
  /** A record's values in parts (src/store/kv/parts.ts), when too large for its head row. */
  recordValues: (formId: string, recordId: string) =>
    ["vault", "record_values", formId, recordId] as const,
  /** A version a change of a record replaced (keyed by `savedAt`; the head is the newest). */
  recordVersion: (formId: string, recordId: string, savedAt: string) =>
    ["vault", "record_versions", formId, recordId, savedAt] as const,
  recordVersions: (formId: string, recordId: string) =>
    ["vault", "record_versions", formId, recordId] as const,
  /** A form's records by receipt time (src/store/kv/record_writes.ts); the value is `true`. */
  recordByTime: (formId: string, createdAt: string, recordId: string) =>
    ["vault", "records_by_time", formId, createdAt, recordId] as const,
  recordsByTime: (formId: string) => ["vault", "records_by_time", formId] as const,
  /** A form's live record count (`Deno.KvU64`). */
  recordCount: (formId: string) => ["vault", "record_counts", formId] as const,
  /** Records received on a UTC day `YYYY-MM-DD` (`Deno.KvU64`). */
  recordDay: (formId: string, day: string) => ["vault", "record_days", formId, day] as const,
  recordDays: (formId: string) => ["vault", "record_days", formId] as const,
  quarantine: (id: string) => ["vault", "quarantine", id] as const,
  quarantineAll: () => ["vault", "quarantine"] as const,
  /** Raw sealed-box parts of a quarantined envelope (written before its row). */
  quarantineData: (id: string, index: number) => ["vault", "quarantine_data", id, index] as const,
  quarantineDataOf: (id: string) => ["vault", "quarantine_data", id] as const,
  /** Files a changed or deleted record no longer refers to, to release at the relay. */
  fileRelease: (id: string) => ["vault", "file_releases", id] as const,
  fileReleasesAll: () => ["vault", "file_releases"] as const,
  /** Vault-wide facts, e.g. the first-run demo form id. */
  meta: (name: string) => ["vault", "meta", name] as const,
};

// ---------------------------------------------------------------------------------------------
// Blobs (src/blobs): metadata of uploaded files, per-user usage, the unclaimed index.
// The bytes live on disk under <data_dir>/blobs/; everything here is under the "blobs" root.
// ---------------------------------------------------------------------------------------------

/** Key builders of the blobs feature. */
export const blobKeys = {
  meta: (userId: string, hash: string) => ["blobs", "meta", userId, hash] as const,
  metaOf: (userId: string) => ["blobs", "meta", userId] as const,
  metaAll: () => ["blobs", "meta"] as const,
  usage: (userId: string) => ["blobs", "usage", userId] as const,
  usageAll: () => ["blobs", "usage"] as const,
  /** Unclaimed blobs ordered by upload time (epoch ms), for the orphan sweep. */
  unclaimed: (uploadedAtMs: number, userId: string, hash: string) =>
    ["blobs", "unclaimed", uploadedAtMs, userId, hash] as const,
  unclaimedAll: () => ["blobs", "unclaimed"] as const,
  /** One claimant's claim (value `true`) of a blob: a record id such as `{formId}/{recordId}`. */
  claim: (userId: string, hash: string, claimant: string) =>
    ["blobs", "claims", userId, hash, claimant] as const,
};

// ---------------------------------------------------------------------------------------------
// Console (src/console): the owner console's server-side sessions. Under the "console" root.
// ---------------------------------------------------------------------------------------------

/** Key builders of the console. */
export const consoleKeys = {
  session: (idHash: string) => ["console", "sessions", idHash] as const,
  /** A user's sessions (the value is null), for "sign out everywhere". */
  userSession: (userId: string, idHash: string) =>
    ["console", "user_sessions", userId, idHash] as const,
  userSessions: (userId: string) => ["console", "user_sessions", userId] as const,
};

// ---------------------------------------------------------------------------------------------
// People (src/people): persons, their memberships of databases, their API tokens, and one-time
// tickets. Everything lives under the "people" root; vault-side data, never sent to the relay.
// ---------------------------------------------------------------------------------------------

/** Key builders of people. */
export const peopleKeys = {
  person: (personId: string) => ["people", "persons", personId] as const,
  /** email (lowercase) → person id: the uniqueness index, listed in email order. */
  email: (email: string) => ["people", "emails", email] as const,
  emails: () => ["people", "emails"] as const,
  /** A membership, as the database lists it. */
  member: (databaseId: string, personId: string) =>
    ["people", "members", databaseId, personId] as const,
  membersOf: (databaseId: string) => ["people", "members", databaseId] as const,
  /** The same membership, as the person lists it (written in the same operation). */
  membership: (personId: string, databaseId: string) =>
    ["people", "memberships", personId, databaseId] as const,
  membershipsOf: (personId: string) => ["people", "memberships", personId] as const,
  /** A database's number of owners (a number), checked by every write that changes it. */
  owners: (databaseId: string) => ["people", "owners", databaseId] as const,
  token: (tokenId: string) => ["people", "tokens", tokenId] as const,
  /** A person's tokens (the value is null). */
  tokenOf: (personId: string, tokenId: string) =>
    ["people", "person_tokens", personId, tokenId] as const,
  tokensOf: (personId: string) => ["people", "person_tokens", personId] as const,
  /** A ticket by the SHA-256 of its secret (expires with the ticket). */
  ticket: (idHash: string) => ["people", "tickets", idHash] as const,
};

// ---------------------------------------------------------------------------------------------
// Sign-in factors (src/store/kv/sign_in_factors.ts): passkeys, TOTP, recovery codes.
// ---------------------------------------------------------------------------------------------

/** Key builders of the sign-in factors. */
export const signInKeys = {
  /** credentialId → a Passkey. */
  passkey: (credentialId: string) => ["sign_in", "passkeys", credentialId] as const,
  /** A person's passkeys (the value: the passkey's createdAt), for listing. */
  personPasskey: (personId: string, credentialId: string) =>
    ["sign_in", "person_passkeys", personId, credentialId] as const,
  personPasskeys: (personId: string) => ["sign_in", "person_passkeys", personId] as const,
  /** personId → a TotpFactor. */
  totp: (personId: string) => ["sign_in", "totp", personId] as const,
  /** One unused recovery code of a person (the value is null). */
  recoveryCode: (personId: string, hash: string) =>
    ["sign_in", "recovery_codes", personId, hash] as const,
  recoveryCodes: (personId: string) => ["sign_in", "recovery_codes", personId] as const,
  /** How many times a person's recovery codes were replaced (a number). */
  recoveryGeneration: (personId: string) => ["sign_in", "recovery_generations", personId] as const,
};

// ---------------------------------------------------------------------------------------------
// Audit (src/audit): the instance's hash-chained log of who did what. Under the "audit" root.
// ---------------------------------------------------------------------------------------------

/** Key builders of the audit log. */
export const auditKeys = {
  /** Entry `seq` (an `AuditEntry`). */
  entry: (seq: number) => ["audit", "entries", seq] as const,
  entries: () => ["audit", "entries"] as const,
  /** The last entry's `{ seq, hash }`, kept when the entry is pruned (appends check it). */
  head: () => ["audit", "head"] as const,
  /** The signed checkpoint of the last prune. */
  checkpoint: () => ["audit", "checkpoint"] as const,
};
