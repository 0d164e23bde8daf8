/**
 * Queue leases of the Deno KV envelope port: in memory, since one process owns a KV file
 * (src/store/data_dir.ts), so every listing of the store passes through this table.
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

interface Queue {
  held: Map<number, Held>;
  /**
   * The size at which expired leases are dropped next: twice what a prune left (at least
   * {@link PRUNE_AT}), so pruning costs O(1) per lease amortized even when few have expired
   * (in role `all` the vault's acks leave their leases to expire).
   */
  pruneAt: number;
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
  readonly #queues = new Map<string, Queue>();

  /**
   * Leases position `seq` of queue `fingerprint` to `lease.holder` unless another holder's
   * lease on it is still running; true when taken (or renewed).
   */
  take(fingerprint: string, seq: number, lease: QueueLease, now = Date.now()): boolean {
    let queue = this.#queues.get(fingerprint);
    if (!queue) this.#queues.set(fingerprint, queue = { held: new Map(), pruneAt: PRUNE_AT });
    const held = queue.held.get(seq);
    if (held && held.holder !== lease.holder && held.until > now) return false;
    if (!held && queue.held.size >= queue.pruneAt) {
      for (const [at, old] of queue.held) if (old.until <= now) queue.held.delete(at);
      queue.pruneAt = Math.max(PRUNE_AT, 2 * queue.held.size);
    }
    queue.held.set(seq, { holder: lease.holder, until: now + lease.ms });
    return true;
  }

  /** Drops the leases of positions `seqs` (acked, or not answered after all). */
  release(fingerprint: string, seqs: Iterable<number>): void {
    const queue = this.#queues.get(fingerprint);
    if (!queue) return;
    for (const seq of seqs) queue.held.delete(seq);
    if (queue.held.size === 0) this.#queues.delete(fingerprint);
  }

  /** Leases held in queue `fingerprint`, expired ones not yet dropped included (for tests). */
  size(fingerprint: string): number {
    return this.#queues.get(fingerprint)?.held.size ?? 0;
  }
}
