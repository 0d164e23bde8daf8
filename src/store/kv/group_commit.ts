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
 * Owned infrastructure. Delete the committer when Deno KV folds concurrent atomic operations
 * into one durable sync itself (today each `commit()` is its own SQLite transaction and fsync)
 * and answers a failed check per operation; bench/intake.ts shows the throughput either way.
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
  /** Batches taken and not finished (in their `beforeCommit` or their commit). */
  #active = 0;
  /** A start is queued for the end of this tick (so the tick's writes share a batch). */
  #scheduled = false;
  #idleWaiters: (() => void)[] = [];
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
      if (this.#scheduled) return;
      this.#scheduled = true;
      // Let the writes recorded in the same tick join the batch.
      queueMicrotask(() => {
        this.#scheduled = false;
        this.#start();
      });
    });
  }

  /** Resolves when everything queued so far has been committed. */
  async idle(): Promise<void> {
    if (this.#pending.length === 0 && this.#active === 0) return;
    await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Strictly increasing, time-based so it keeps increasing across restarts. */
  #nextSeq(): number {
    this.#lastSeq = Math.max(this.#lastSeq + 1, Date.now() * 1000);
    return this.#lastSeq;
  }

  /**
   * Takes batches while fewer than `inFlight` are under way. With one in flight, a batch is
   * taken only once the one before it has committed, so sequence numbers stay in commit order.
   * (Running the next batch's `beforeCommit` during the previous commit was measured: smaller
   * batches, more fsyncs, lower intake throughput.)
   */
  #start(): void {
    while (this.#pending.length > 0 && this.#active < this.inFlight) {
      this.#active++;
      void this.#commitBatch(this.#takeBatch()); // answers through its items
    }
  }

  /**
   * Commits one batch after its `beforeCommit`; never throws (each item's promise carries its
   * outcome). The next batch starts before the outcomes are told: its fsyncs overlap the work
   * of answering this batch's writers instead of waiting behind it.
   */
  async #commitBatch(batch: Pending[]): Promise<void> {
    const outcomes = new Map<Pending, () => void>();
    const ok = (p: Pending, committed: boolean) =>
      outcomes.set(p, () => p.resolve({ ok: committed, seq: p.seq }));
    const fail = (p: Pending, err: unknown) => outcomes.set(p, () => p.reject(err));
    try {
      try {
        await this.beforeCommit?.();
      } catch (err) {
        for (const p of batch) fail(p, err);
        return;
      }
      let todo = batch;
      try {
        for (let round = 0; round <= RECOMMITS && todo.length > 0; round++) {
          const op = applyAll(todo.map((p) => p.write), this.kv.atomic());
          if ((await commitOp(op)).ok) {
            for (const p of todo) ok(p, true);
            return;
          }
          if (todo.length === 1) return void ok(todo[0], false);
          // A check failed: refuse the items whose checks no longer hold, commit the others.
          const failing = await this.#failingChecks(todo);
          for (const p of todo) if (failing.has(p)) ok(p, false);
          todo = todo.filter((p) => !failing.has(p));
        }
      } catch (err) {
        if (todo.length === 1) return void fail(todo[0], err);
      }
      // Refused as a whole (too large) or still failing: each on its own.
      for (const p of todo) {
        try {
          ok(p, await p.write.commit(this.kv));
        } catch (err) {
          fail(p, err);
        }
      }
    } catch (err) {
      // Not expected (the steps above catch their own): nothing is left unanswered.
      for (const p of batch) if (!outcomes.has(p)) fail(p, err);
    } finally {
      this.#active--;
      this.#start();
      for (const tell of outcomes.values()) tell();
      if (this.#active === 0 && this.#pending.length === 0 && !this.#scheduled) {
        for (const resolve of this.#idleWaiters.splice(0)) resolve();
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
