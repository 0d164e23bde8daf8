/**
 * A per-key mutex for one process: tasks on the same key run one after another.
 *
 * @module
 */

/** Runs tasks one at a time per key; different keys run concurrently. */
export class KeyedLock {
  #tails = new Map<string, Promise<unknown>>();

  /** Runs `task` once every earlier task on `key` has settled; resolves to its result. */
  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => {});
    this.#tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
