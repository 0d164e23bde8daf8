/**
 * The envelope port: intake's submissions (a head per submission id: idempotency, edit
 * window, latest version) and each recipient's queue of sealed envelope versions, in arrival
 * order, until the owner's vault acknowledges them.
 *
 * @module
 */

import type { WritePart } from "./write_part.ts";

/** The head record of a submission (all versions share it). */
export interface SubmissionHead {
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

/** An ack found the queue changing under it on every attempt; acking again is safe. */
export class QueueContendedError extends Error {
  override name = "QueueContendedError";
}

/** One envelope version to queue for its recipient. */
export interface NewEnvelope {
  formId: string;
  recipientPubkey: string;
  submitterId: string | null;
  /** The sealed box, as received. */
  ciphertext: Uint8Array;
}

/** What is known of a queued envelope version besides its bytes. */
export interface EnvelopeHeader {
  submissionId: string;
  version: number;
  formId: string;
  recipientPubkey: string;
  submitterId: string | null;
  /** When it was committed (ISO 8601). */
  receivedAt: string;
}

/** One pending envelope version as the owner receives it. */
export interface QueuedEnvelope extends EnvelopeHeader {
  /** Queue position: strictly increasing in arrival (commit) order per recipient. */
  seq: number;
  ciphertext: Uint8Array;
}

/** A queue entry as acking needs it: its position. */
export type AckEntry = Pick<QueuedEnvelope, "seq">;

/** A page of a recipient's queue. */
export interface QueuePage {
  items: QueuedEnvelope[];
  /** The `seq` to pass as `after` for the next page; null at the end of the queue. */
  nextCursor: number | null;
}

/** How far behind a recipient is. */
export interface QueueStats {
  /** Envelopes waiting, counted up to the cap asked for. */
  depth: number;
  /** When the oldest waiting envelope arrived; null for an empty queue. */
  oldestReceivedAt: string | null;
}

/**
 * A lease taken with a listing, so that several vault workers split one queue: envelopes
 * leased to one holder are skipped by the leasing listings of every other holder until they
 * are acked or the lease ends. Listings without a lease see every envelope.
 */
export interface QueueLease {
  /** Who takes the lease (a worker, or one request); a holder sees its own leases. */
  holder: string;
  /** How long the lease lasts, in milliseconds. */
  ms: number;
}

/** Storage of submissions and recipients' envelope queues. */
export interface EnvelopePort {
  /** The head of submission `submissionId`, or null when unknown. */
  getSubmission(submissionId: string): Promise<SubmissionHead | null>;
  /**
   * Writes `head` and queues `envelope` as version `head.version` for recipient
   * `head.fingerprint`, in one atomic, durable write, provided the stored head is still at
   * version `expectedVersion` (null: no head of that id is stored). False (nothing written)
   * when it is not. The envelope's `seq` is later than every envelope committed before.
   * Ciphertexts of any size up to the intake limit are taken; a crash mid-write leaves nothing
   * a reader sees (and nothing {@linkcode sweep} does not remove).
   */
  writeVersion(
    head: SubmissionHead,
    expectedVersion: number | null,
    envelope: NewEnvelope,
  ): Promise<boolean>;
  /**
   * Up to `limit` envelopes of recipient `fingerprint` after position `after` (0: from the
   * start), in arrival order. A page stops early past about 16 MiB of ciphertext (always at
   * least one item). With `lease`, envelopes leased to another holder are skipped and those
   * answered are leased to `lease.holder` (see {@linkcode QueueLease}); two leasing listings at
   * once, from any processes, never answer one envelope to two holders.
   */
  listQueue(
    fingerprint: string,
    after: number,
    limit: number,
    lease?: QueueLease,
  ): Promise<QueuePage>;
  /**
   * Removes the envelopes at positions `seqs` from `fingerprint`'s queue; answers how many
   * were there. Idempotent: positions acked already (or never used) are skipped, and two acks
   * of one position at once count it once. Throws {@linkcode QueueContendedError} when the
   * queue kept changing under it (some positions may be acked then).
   */
  ack(fingerprint: string, seqs: number[]): Promise<number>;
  /**
   * The removal of `entry` from `fingerprint`'s queue as a part of another port's atomic
   * write (the vault saves a record and acks its envelope in one commit). Blind: acking an
   * entry already gone changes nothing.
   */
  ackPart(fingerprint: string, entry: AckEntry): WritePart;
  /** Depth (up to `cap`) and oldest arrival of `fingerprint`'s queue. */
  queueStats(fingerprint: string, cap: number): Promise<QueueStats>;
  /**
   * Calls `listener` with the recipient's fingerprint after envelopes for it were committed
   * (by any process sharing the store, shortly after the commit); answers the function that
   * stops it. For waking waiters, not for counting: calls may be merged or, when the store's
   * connection drops, lost (a waiter also looks again after a while).
   */
  onQueued(listener: (fingerprint: string) => void): () => void;
  /**
   * Frees the storage no queued envelope needs any more: what acked envelopes took and what
   * writes interrupted by a crash left (never visible to readers). Safe at any time, alongside
   * reads and writes; run it before serving and periodically. Answers how many storage units
   * (implementation-defined: files, chunk sets) it freed.
   */
  sweep(): Promise<number>;
}
