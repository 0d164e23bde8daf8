/**
 * Group commit for PostgreSQL: writes queued while a batch is in flight go together in the
 * next one (one transaction, multi-row statements), so many concurrent requests share one
 * round trip and one WAL flush.
 *
 * @module
 */

interface Waiting<I, O> {
  item: I;
  resolve(out: O): void;
  reject(err: unknown): void;
}

/**
 * Runs `flush` on batches of queued items, at most `inFlight` batches at once and at most
 * `maxItems` items each; `flush` answers one result per item, in order. A failed flush fails
 * every item of its batch (the transaction rolled back: nothing of it is written).
 *
 * @example
 * ```ts
 * const batcher = new Batcher(async (rows: Row[]) => insertAll(rows), { maxItems: 256 });
 * const saved = await batcher.submit(row);
 * ```
 */
export class Batcher<I, O> {
  #queue: Waiting<I, O>[] = [];
  #running = 0;
  #idle: (() => void)[] = [];

  constructor(
    private flush: (items: I[]) => Promise<O[]>,
    private options: { maxItems: number; inFlight?: number },
  ) {}

  /** Queues `item`; resolves with its result once its batch is committed. */
  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#pump();
    });
  }

  /** Resolves when nothing is queued or in flight. */
  idle(): Promise<void> {
    if (this.#running === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #pump() {
    while (this.#queue.length > 0 && this.#running < (this.options.inFlight ?? 1)) {
      const batch = this.#queue.splice(0, this.options.maxItems);
      this.#running++;
      this.#run(batch).finally(() => {
        this.#running--;
        this.#pump();
        if (this.#running === 0 && this.#queue.length === 0) {
          for (const resolve of this.#idle.splice(0)) resolve();
        }
      });
    }
  }

  async #run(batch: Waiting<I, O>[]) {
    try {
      const out = await this.flush(batch.map((w) => w.item));
      if (out.length !== batch.length) {
        throw new Error(`A batch of ${batch.length} answered ${out.length} results`);
      }
      batch.forEach((w, i) => w.resolve(out[i]));
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
}
