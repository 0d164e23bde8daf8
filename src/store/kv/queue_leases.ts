/**
 * Queue leases of the Deno KV envelope port: in memory, since one process owns a KV file
 * (src/store/data_lock.ts), so every listing of the store passes through this table.
 *
 * @module
 */
import type { QueueLease } from "../ports/envelopes.ts";

/** Expired leases of one queue are dropped when it holds more than this many. */
const PRUNE_AT = 1024;

interface Held {
  holder: string;
  until: number;
}

/**
 * Who holds which queue position until when.
 *
 * @example
 * ```ts
 * const leases = new QueueLeases();
 * if (leases.take("fp", 7, { holder: "worker-a", ms: 60_000 })) {
 *   // position 7 is worker-a's for a minute
 * }
 * ```
 */
export class QueueLeases {
  readonly #queues = new Map<string, Map<number, Held>>();

  /**
   * Leases position `seq` of queue `fingerprint` to `lease.holder` unless another holder's
   * lease on it is still running; true when taken (or renewed).
   */
  take(fingerprint: string, seq: number, lease: QueueLease, now = Date.now()): boolean {
    let queue = this.#queues.get(fingerprint);
    if (!queue) this.#queues.set(fingerprint, queue = new Map());
    const held = queue.get(seq);
    if (held && held.holder !== lease.holder && held.until > now) return false;
    if (!held && queue.size >= PRUNE_AT) prune(queue, now);
    queue.set(seq, { holder: lease.holder, until: now + lease.ms });
    return true;
  }

  /** Drops the leases of positions `seqs` (acked, or not answered after all). */
  release(fingerprint: string, seqs: Iterable<number>): void {
    const queue = this.#queues.get(fingerprint);
    if (!queue) return;
    for (const seq of seqs) queue.delete(seq);
    if (queue.size === 0) this.#queues.delete(fingerprint);
  }
}

function prune(queue: Map<number, Held>, now: number) {
  for (const [seq, held] of queue) if (held.until <= now) queue.delete(seq);
}
