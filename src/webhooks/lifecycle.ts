/**
 * What the engine's runners share: whether the engine runs, the work under way (so a stop
 * waits for it), and the structured log.
 *
 * @module
 */

/**
 * The running state of the engine and its work under way.
 *
 * @example
 * ```ts
 * const life = new Lifecycle((line) => console.error(line));
 * life.start();
 * await life.track(() => work());
 * await life.stop();
 * ```
 */
export class Lifecycle {
  #running = new Set<Promise<unknown>>();
  #stopping = true;

  constructor(private sink: (line: string) => void) {}

  /** True before `start` and from `stop` on. */
  get stopping(): boolean {
    return this.#stopping;
  }

  /** From now on, work is accepted. */
  start(): void {
    this.#stopping = false;
  }

  /** Refuses new work and waits for the work under way (and what it starts) to finish. */
  async stop(): Promise<void> {
    this.#stopping = true;
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  /**
   * Runs `work`, remembered until it settles.
   *
   * @throws {Error} when stopping (the caller leaves the work for the next start).
   */
  track<T>(work: () => Promise<T>): Promise<T> {
    if (this.#stopping) {
      return Promise.reject(new Error("The webhook engine is stopping; redeliver later"));
    }
    const promise = work();
    const running = this.#running;
    running.add(promise);
    const done = () => running.delete(promise);
    promise.then(done, done);
    return promise;
  }

  /** Writes one JSON log line (ids and statuses, never secrets). */
  log(level: string, msg: string, fields: Record<string, unknown>): void {
    this.sink(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
  }
}
