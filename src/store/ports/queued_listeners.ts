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
  /** Fingerprints announced in this turn of the event loop, told once at its end. */
  #announced: Set<string> | null = null;

  /** Adds `listener`; answers the function that removes it. */
  add(listener: (fingerprint: string) => void): () => void {
    const own = (fingerprint: string) => listener(fingerprint);
    this.#listeners.add(own);
    return () => this.#listeners.delete(own);
  }

  /**
   * Like {@link emit}, once per fingerprint for all the announcements made before the current
   * microtasks run out: the writers of one group commit resume together, and their batch is
   * told as one event instead of one per envelope.
   */
  announce(fingerprint: string): void {
    if (this.#announced) {
      this.#announced.add(fingerprint);
      return;
    }
    this.#announced = new Set([fingerprint]);
    queueMicrotask(() => {
      const announced = this.#announced!;
      this.#announced = null;
      for (const fp of announced) this.emit(fp);
    });
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
