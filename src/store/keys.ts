/**
 * The layout of every Deno KV key Sealpost writes, in one module.
 *
 * Values are typed next to their key builders so a reader sees the whole store here.
 *
 * @module
 */

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

/** A published form manifest. */
export interface FormRow {
  formId: string;
  userId: string;
  fingerprint: string;
  publicKey: string;
  schemaVersion: number;
  manifest: Record<string, unknown>;
  publishedAt: string;
}

/** Where one version of a submission waits: its queue entry. */
export interface PendingVersion {
  version: number;
  fingerprint: string;
  seq: number;
  /** Chunk set of a ciphertext too large to sit in the queue row. */
  blobId?: string;
  chunks?: number;
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
  /** Versions not yet acknowledged by the owner. */
  pending: PendingVersion[];
}

/** A queued envelope version, in its recipient's queue (ordered by `seq`). */
export interface QueueRow {
  submissionId: string;
  version: number;
  formId: string;
  recipientPubkey: string;
  submitterId: string | null;
  receivedAt: string;
  bytes: number;
  /** The sealed box, when it fits in this row; else it is in chunk set `blobId`. */
  ciphertext?: Uint8Array;
  blobId?: string;
  chunks?: number;
}

/** Key builders, grouped by concern. */
export const keys = {
  user: (userId: string) => ["users", userId] as const,
  token: (tokenId: string) => ["tokens", tokenId] as const,
  database: (userId: string, dbId: string) => ["databases", userId, dbId] as const,
  databasesOf: (userId: string) => ["databases", userId] as const,
  /** fingerprint → {userId, dbId}: the identity registry's routing index. */
  recipient: (fingerprint: string) => ["recipients", fingerprint] as const,
  challenge: (id: string) => ["challenges", id] as const,
  form: (formId: string) => ["forms", formId] as const,
  submission: (id: string) => ["submissions", id] as const,
  /** Ciphertext chunk `index` of chunk set `blobId` (large ciphertexts only). */
  chunk: (blobId: string, index: number) => ["chunks", blobId, index] as const,
  chunksOf: (blobId: string) => ["chunks", blobId] as const,
  /** Marks a chunk set written ahead of its commit; swept on start if the commit never came. */
  staging: (blobId: string) => ["staging", blobId] as const,
  stagingAll: () => ["staging"] as const,
  /** The per-recipient queue of envelopes, ordered by `seq`. */
  queue: (fingerprint: string, seq: number) => ["queue", fingerprint, seq] as const,
  queueOf: (fingerprint: string) => ["queue", fingerprint] as const,
  /** Snapshot parts of a record event (see src/events). */
  recordEvent: (eventId: string) => ["record_events", eventId] as const,
};
