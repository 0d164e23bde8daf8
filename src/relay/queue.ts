/**
 * The per-recipient queue the owner's vault drains, as the owner sees it: pages in arrival
 * order with base64 ciphertexts, then acks by position. Storage is the envelope port's
 * (src/store/ports/envelopes.ts); in role `all` the vault acks in its own commit instead
 * (`EnvelopePort.ackPart`).
 *
 * @module
 */
import { Conflict } from "../errors/index.ts";
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

/**
 * Up to `limit` pending envelopes of the recipient `fp` after position `after`, in arrival
 * order, with the cursor to continue from.
 *
 * @example
 * ```ts
 * const { items, nextCursor } = await listQueue(envelopes, fingerprint, 0, 100);
 * ```
 */
export async function listQueue(
  envelopes: EnvelopePort,
  fp: string,
  after: number,
  limit: number,
): Promise<{ items: QueueItem[]; nextCursor: string | null }> {
  const page = await envelopes.listQueue(fp, after, limit);
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
