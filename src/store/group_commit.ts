/**
 * Group commit: many independent writes folded into one Deno KV atomic operation.
 *
 * By default commits run one at a time, so the sequence numbers handed out are in commit
 * order: a reader paging a queue by sequence number never skips an entry committed after it
 * looked. Writers that do not page by sequence number may keep more commits in flight (the
 * store's round trip then overlaps the next batch's).
 *
 * @module
 */

/** One write waiting for a commit. */
export interface CommitItem {
  /** Items with the same lock never share a batch (e.g. the submission id). */
  lock: string;
  /** Conditions that must hold; when one fails only this item fails. */
  checks: Deno.AtomicCheck[];
  /** Adds this item's mutations; `seq` is its place in commit order. */
  apply(op: Deno.AtomicOperation, seq: number): void;
  /** Number of mutations `apply` adds. */
  mutations: number;
  /** Approximate bytes `apply` writes. */
  bytes: number;
}

/** The outcome of one item: committed or not (a check failed), and its sequence number. */
export interface CommitResult {
  ok: boolean;
  seq: number;
}

interface Pending {
  item: CommitItem;
  resolve(result: CommitResult): void;
  reject(err: unknown): void;
}

/**
 * Limits of one batch, below Deno KV's per-operation limits (100 checks, 1000 mutations,
 * 800 KiB).
 */
export interface BatchLimits {
  maxChecks: number;
  maxMutations: number;
  maxBytes: number;
}

const DEFAULT_LIMITS: BatchLimits = { maxChecks: 100, maxMutations: 900, maxBytes: 600 * 1024 };

/**
 * Serialises writes through batched atomic commits.
 *
 * @example
 * ```ts
 * const committer = new GroupCommitter(kv);
 * const { ok, seq } = await committer.commit({
 *   lock: "a", checks: [{ key: ["a"], versionstamp: null }],
 *   apply: (op, seq) => op.set(["a"], seq), mutations: 1, bytes: 16,
 * });
 * ```
 */
export class GroupCommitter {
  #pending: Pending[] = [];
  #draining: Promise<void> | null = null;
  #lastSeq = 0;

  /**
   * `inFlight`: commits under way at once (default 1; above 1, sequence numbers are no longer
   * in commit order).
   */
  constructor(
    private kv: Deno.Kv,
    private limits: BatchLimits = DEFAULT_LIMITS,
    private inFlight = 1,
  ) {}

  /** Queues `item` for the next batch and resolves once it is durable (or refused). */
  commit(item: CommitItem): Promise<CommitResult> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ item, resolve, reject });
      this.#draining ??= this.#drain();
    });
  }

  /** Resolves when everything queued so far has been committed. */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  /** Strictly increasing, time-based so it keeps increasing across restarts. */
  #nextSeq(): number {
    this.#lastSeq = Math.max(this.#lastSeq + 1, Date.now() * 1000);
    return this.#lastSeq;
  }

  async #drain(): Promise<void> {
    // Let the requests that arrived in the same tick join the first batch.
    await Promise.resolve();
    const running = new Set<Promise<void>>();
    while (this.#pending.length > 0 || running.size > 0) {
      while (this.#pending.length > 0 && running.size < this.inFlight) {
        const commit = this.#commitBatch(this.#takeBatch());
        running.add(commit);
        commit.then(() => running.delete(commit));
      }
      await Promise.race(running);
    }
    // No await between the emptiness check and this reset: a later commit() starts anew.
    this.#draining = null;
  }

  /** Commits one batch; never throws (each item's promise carries its outcome). */
  async #commitBatch(batch: Pending[]): Promise<void> {
    const seqs = batch.map(() => this.#nextSeq());
    try {
      const op = this.kv.atomic();
      batch.forEach((p, i) => {
        op.check(...p.item.checks);
        p.item.apply(op, seqs[i]);
      });
      if ((await op.commit()).ok) {
        batch.forEach((p, i) => p.resolve({ ok: true, seq: seqs[i] }));
        return;
      }
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
    }
    // A check failed (or the batch was refused): commit each on its own.
    for (const [i, p] of batch.entries()) {
      try {
        const op = this.kv.atomic().check(...p.item.checks);
        p.item.apply(op, seqs[i]);
        p.resolve({ ok: (await op.commit()).ok, seq: seqs[i] });
      } catch (err) {
        p.reject(err);
      }
    }
  }

  #takeBatch(): Pending[] {
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const locks = new Set<string>();
    let checks = 0;
    let mutations = 0;
    let bytes = 0;
    for (const p of this.#pending) {
      const fits = batch.length === 0 || (
        checks + p.item.checks.length <= this.limits.maxChecks &&
        mutations + p.item.mutations <= this.limits.maxMutations &&
        bytes + p.item.bytes <= this.limits.maxBytes &&
        !locks.has(p.item.lock)
      );
      if (fits) {
        batch.push(p);
        locks.add(p.item.lock);
        checks += p.item.checks.length;
        mutations += p.item.mutations;
        bytes += p.item.bytes;
      } else {
        rest.push(p);
      }
    }
    this.#pending = rest;
    return batch;
  }
}
