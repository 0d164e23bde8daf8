/**
 * The per-recipient queue the owner's vault drains, as the owner sees it: pages in arrival
 * order with base64 ciphertexts, then acks by position. Storage is the envelope port's
 * (src/store/ports/envelopes.ts); in role `all` the vault acks in its own commit instead
 * (`EnvelopePort.ackPart`).
 *
 * @module
 */
import { Conflict } from "../errors/index.ts";
import { waitForItems } from "./queue_wait.ts";
import {
  type AckEntry,
  type EnvelopePort,
  QueueContendedError,
  type QueuedEnvelope,
} from "../store/ports/envelopes.ts";

export type { AckEntry };

/** One pending envelope version as the owner receives it. */
export interface QueueItem extends Omit<QueuedEnvelope, "ciphertext"> {
  /** Standard base64 of the sealed box. */
  ciphertext: string;
}

/** How a reader lists: leasing what it reads, waiting for something to read. */
export interface ListOptions {
  /** Lease the items answered for this many seconds to `holder` (see `QueueLease`). */
  lease?: { holder: string; seconds: number };
  /** When nothing is there, wait up to this many seconds for envelopes to arrive. */
  waitSeconds?: number;
  /** Ends the wait early (the page found so far is answered). */
  signal?: AbortSignal;
}

/**
 * Up to `limit` pending envelopes of the recipient `fp` after position `after`, in arrival
 * order, with the cursor to continue from.
 *
 * @example
 * ```ts
 * const { items, nextCursor } = await listQueue(envelopes, fingerprint, 0, 100);
 * const leased = await listQueue(envelopes, fingerprint, 0, 100, {
 *   lease: { holder: "worker-1", seconds: 120 },
 *   waitSeconds: 25,
 * });
 * ```
 */
export async function listQueue(
  envelopes: EnvelopePort,
  fp: string,
  after: number,
  limit: number,
  options: ListOptions = {},
): Promise<{ items: QueueItem[]; nextCursor: string | null }> {
  const lease = options.lease &&
    { holder: options.lease.holder, ms: options.lease.seconds * 1000 };
  const list = () => envelopes.listQueue(fp, after, limit, lease);
  const page = options.waitSeconds
    ? await waitForItems(envelopes, fp, options.waitSeconds, list, options.signal)
    : await list();
  return {
    items: page.items.map((item) => ({ ...item, ciphertext: item.ciphertext.toBase64() })),
    nextCursor: page.nextCursor === null ? null : String(page.nextCursor),
  };
}

/**
 * Removes the entries at positions `seqs` from the queue of `fp`; returns how many were
 * there. Idempotent; a queue that kept changing under the ack is a 409 (ack again).
 *
 * @example
 * ```ts
 * const acked = await ackQueue(envelopes, fingerprint, [seq]);
 * ```
 */
export async function ackQueue(envelopes: EnvelopePort, fp: string, seqs: number[]) {
  try {
    return await envelopes.ack(fp, seqs);
  } catch (err) {
    if (err instanceof QueueContendedError) throw new Conflict("conflict", err.message);
    throw err;
  }
}
