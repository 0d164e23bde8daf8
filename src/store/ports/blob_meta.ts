/**
 * The blob metadata port: one row per uploaded blob, each owner's usage (kept exact with the
 * rows, so the quota holds), the claims records hold on blobs, and the unclaimed blobs the
 * orphan sweep reads. The bytes live in a byte store (src/blobs), not here.
 *
 * @module
 */

/** Metadata of one stored blob (its bytes are in the blob store under the same key). */
export interface BlobMeta {
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
export interface BlobUsage {
  bytes: number;
  count: number;
}

/** Where one blob lives: its owner (the recipient user) and the SHA-256 of its bytes. */
export interface BlobKey {
  userId: string;
  /** 64 lowercase hex characters. */
  hash: string;
}

/** An unclaimed blob and its upload time (epoch ms), as the orphan listing yields it. */
export interface OrphanCandidate extends BlobKey {
  uploadedAtMs: number;
}

/** Storing a blob would take its user past the quota. */
export class QuotaExceededError extends Error {
  override name = "QuotaExceededError";
  constructor(
    readonly userId: string,
    readonly sizeBytes: number,
    readonly usedBytes: number,
    readonly quotaBytes: number,
  ) {
    super(
      `Storing ${sizeBytes} more bytes would take user "${userId}" past the quota of ` +
        `${quotaBytes} bytes (${usedBytes} used)`,
    );
  }
}

/** Storage of blob metadata, usage and claims. Every write is atomic per blob. */
export interface BlobMetaPort {
  /** The metadata of blob `key`, or null when it is not stored. */
  get(key: BlobKey): Promise<BlobMeta | null>;
  /** What `userId`'s blobs take up (zeros for a user with none). */
  usage(userId: string): Promise<BlobUsage>;
  /** The sum of every user's usage. */
  totalUsage(): Promise<BlobUsage>;
  /**
   * Records an upload whose bytes are stored. It must fit in `quotaBytes` whether or not the
   * blob is stored already ({@linkcode QuotaExceededError}, nothing written). A new blob gets
   * its row, unclaimed with upload time `now`, and counts against its user's usage in the same
   * atomic write (two uploads at once never both pass a quota only one fits in). A stored blob
   * keeps its row and costs nothing more; if unclaimed, its upload time moves to `now`.
   */
  recordUpload(
    key: BlobKey,
    upload: { mime: string | null; sizeBytes: number },
    quotaBytes: number,
    now: Date,
  ): Promise<{ created: boolean; meta: BlobMeta }>;
  /**
   * Claims blobs of `userId` for `claimant`: a claimed blob is never an orphan. Idempotent
   * per claimant (each claimant counts once in `claims`); the first claim sets `claimedAt`.
   * Hashes are deduplicated; answers which are claimed now and which are not stored.
   */
  claim(
    userId: string,
    hashes: string[],
    now: Date,
    claimant: string,
  ): Promise<{ claimed: string[]; missing: string[] }>;
  /**
   * Drops `claimant`'s claims of blobs of `userId` (idempotent). A blob whose last claim goes
   * is unclaimed again with upload time `now` (its grace period starts anew). Answers the
   * hashes that became unclaimed.
   */
  release(
    userId: string,
    hashes: string[],
    now: Date,
    claimant: string,
  ): Promise<{ unclaimed: string[] }>;
  /**
   * Unclaimed blobs uploaded at or before `cutoffMs`, oldest first. A candidate may have moved
   * on (claimed, re-uploaded) by the time it is handled: {@linkcode forgetOrphan} decides.
   */
  orphans(cutoffMs: number): AsyncIterable<OrphanCandidate>;
  /**
   * Deletes the row of `candidate` if it is still an orphan (unclaimed, uploaded at or before
   * `cutoffMs`), giving its size back to its user's usage in the same atomic write; answers
   * the deleted row, or null when the blob is gone or no orphan any more (then the candidate
   * is not listed again).
   */
  forgetOrphan(candidate: OrphanCandidate, cutoffMs: number): Promise<BlobMeta | null>;
}
