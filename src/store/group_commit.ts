/**
 * Group commit: many independent writes folded into one Deno KV atomic operation.
 *
 * Each write is recorded ({@link KvWrite}) when it is queued, so the committer knows its
 * checks, mutations and bytes and fills batches up to Deno KV's limits; no writer declares
 * them. Batches take queued writes in order, so with one commit in flight (the default) the
 * sequence numbers handed out are in commit order: a reader paging a queue by sequence number
 * never skips an entry committed after it looked. Writers that do not page by sequence number
 * may keep more commits in flight (the store's round trip then overlaps the next batch's).
 *
 * @module
 */
import { applyAll, commitOp, KV_LIMITS, KvWrite } from "./write.ts";

/** One write waiting for a commit. */
export interface CommitItem {
  /** Items with the same lock never share a batch (e.g. the submission id). */
  lock: string;
  /**
   * Records the write in `w`: its checks (when one fails only this item fails) and its
   * mutations; `seq` is its place in commit order.
   */
  build(w: KvWrite, seq: number): void;
}

/** The outcome of one item: committed or not (a check failed), and its sequence number. */
export interface CommitResult {
  ok: boolean;
  seq: number;
}

interface Pending {
  lock: string;
  write: KvWrite;
  seq: number;
  resolve(result: CommitResult): void;
  reject(err: unknown): void;
}

/** Limits of one batch, at or below Deno KV's per-operation limits. */
export interface BatchLimits {
  maxChecks: number;
  maxMutations: number;
  maxBytes: number;
}

/** Byte sizes are estimates: batches keep a quarter of Deno KV's 800 KiB in reserve. */
const DEFAULT_LIMITS: BatchLimits = {
  maxChecks: KV_LIMITS.checks,
  maxMutations: KV_LIMITS.mutations,
  maxBytes: 600 * 1024,
};

/** Times a batch is recommitted without the items whose checks failed. */
const RECOMMITS = 3;

/**
 * Serialises writes through batched atomic commits.
 *
 * @example
 * ```ts
 * const committer = new GroupCommitter(kv);
 * const { ok, seq } = await committer.commit({
 *   lock: "a",
 *   build: (w, seq) => w.check({ key: ["a"], versionstamp: null }).set(["a"], seq),
 * });
 * ```
 */
export class GroupCommitter {
  #pending: Pending[] = [];
  #draining: Promise<void> | null = null;
  #lastSeq = 0;

  /**
   * `inFlight`: commits under way at once (default 1; above 1, sequence numbers are no longer
   * in commit order). `beforeCommit`: runs before each batch commits (e.g. the fsync of the
   * segment files its rows point into); when it fails, the batch fails.
   */
  constructor(
    private kv: Deno.Kv,
    private limits: BatchLimits = DEFAULT_LIMITS,
    private inFlight = 1,
    private beforeCommit?: () => Promise<void>,
  ) {}

  /** Records `item` for the next batch and resolves once it is durable (or refused). */
  commit(item: CommitItem): Promise<CommitResult> {
    const seq = this.#nextSeq();
    const write = new KvWrite();
    item.build(write, seq);
    return new Promise((resolve, reject) => {
      this.#pending.push({ lock: item.lock, write, seq, resolve, reject });
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
    let todo = batch;
    try {
      await this.beforeCommit?.();
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    try {
      for (let round = 0; round <= RECOMMITS && todo.length > 0; round++) {
        const op = applyAll(todo.map((p) => p.write), this.kv.atomic());
        if ((await commitOp(op)).ok) {
          for (const p of todo) p.resolve({ ok: true, seq: p.seq });
          return;
        }
        if (todo.length === 1) return todo[0].resolve({ ok: false, seq: todo[0].seq });
        // A check failed: refuse the items whose checks no longer hold, commit the others.
        const failing = await this.#failingChecks(todo);
        for (const p of todo) if (failing.has(p)) p.resolve({ ok: false, seq: p.seq });
        todo = todo.filter((p) => !failing.has(p));
      }
    } catch (err) {
      if (todo.length === 1) return todo[0].reject(err);
    }
    // Refused as a whole (too large) or still failing: each on its own.
    for (const p of todo) {
      try {
        p.resolve({ ok: await p.write.commit(this.kv), seq: p.seq });
      } catch (err) {
        p.reject(err);
      }
    }
  }

  /** The items of `batch` with a check whose key now has another versionstamp. */
  async #failingChecks(batch: Pending[]): Promise<Set<Pending>> {
    const checks = batch.flatMap((p) => p.write.checked.map((check) => ({ p, check })));
    const failing = new Set<Pending>();
    for (let i = 0; i < checks.length; i += 10) {
      const slice = checks.slice(i, i + 10);
      const current = await this.kv.getMany(slice.map(({ check }) => check.key));
      slice.forEach(({ p, check }, j) => {
        if (current[j].versionstamp !== check.versionstamp) failing.add(p);
      });
    }
    return failing;
  }

  /**
   * The longest run of queued items, in order, that fits the limits with no lock twice (so
   * batches commit in the order items were queued).
   */
  #takeBatch(): Pending[] {
    const locks = new Set<string>();
    let checks = 0;
    let mutations = 0;
    let bytes = 0;
    let count = 0;
    for (const p of this.#pending) {
      const w = p.write;
      const fits = count === 0 || (
        checks + w.checks <= this.limits.maxChecks &&
        mutations + w.mutations <= this.limits.maxMutations &&
        bytes + w.bytes <= this.limits.maxBytes &&
        !locks.has(p.lock)
      );
      if (!fits) break;
      locks.add(p.lock);
      checks += w.checks;
      mutations += w.mutations;
      bytes += w.bytes;
      count++;
    }
    return this.#pending.splice(0, count);
  }
}
