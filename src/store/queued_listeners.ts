/**
 * The listeners of an envelope port's `onQueued` (src/store/ports/envelopes.ts), told in
 * process: by the Deno KV port after its commits, by the PostgreSQL port on each NOTIFY.
 *
 * @module
 */

/**
 * A set of `(fingerprint) => void` listeners; one that throws does not stop the others.
 *
 * @example
 * ```ts
 * const queued = new QueuedListeners();
 * const stop = queued.add((fp) => console.log("queued for", fp));
 * queued.emit("fp1");
 * stop();
 * ```
 */
export class QueuedListeners {
  readonly #listeners = new Set<(fingerprint: string) => void>();

  /** Adds `listener`; answers the function that removes it. */
  add(listener: (fingerprint: string) => void): () => void {
    const own = (fingerprint: string) => listener(fingerprint);
    this.#listeners.add(own);
    return () => this.#listeners.delete(own);
  }

  /** Tells every listener that envelopes for `fingerprint` were committed. */
  emit(fingerprint: string): void {
    for (const listener of this.#listeners) {
      try {
        listener(fingerprint);
      } catch {
        // A listener's failure is its own; the others are still told.
      }
    }
  }
}
