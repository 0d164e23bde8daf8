/**
 * Many deadlines on one timer: waiting for a slot and waiting for a response each need a
 * deadline per delivery, and a timer per deadline costs more than the rest of the wait's
 * bookkeeping. Deadlines are rarely reached (most are cancelled well before), so one timer
 * armed for the earliest of them, which on firing handles the ones due and re-arms for the
 * next, fires about once per deadline length however many are set meanwhile.
 *
 * @module
 */

/** A deadline set with {@linkcode Deadlines.add}. */
export interface Deadline {
  /** When it is due, in `performance.now()` milliseconds. */
  readonly at: number;
  readonly onExpire: () => void;
}

/**
 * Calls each deadline's `onExpire` once it is due, unless it was deleted first; no earlier
 * than its time, and late only by the timer's own lateness.
 *
 * @example
 * ```ts
 * const deadlines = new Deadlines();
 * const deadline = deadlines.add(2_000, () => console.log("too late"));
 * // ... done in time:
 * deadlines.delete(deadline);
 * ```
 */
export class Deadlines {
  #pending = new Set<Deadline>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** When the timer fires (Infinity when it is not armed). */
  #armedAt = Infinity;

  /** Calls `onExpire` in `ms` milliseconds unless the returned deadline is deleted first. */
  add(ms: number, onExpire: () => void): Deadline {
    const deadline = { at: performance.now() + ms, onExpire };
    this.#pending.add(deadline);
    if (deadline.at < this.#armedAt) this.#arm(deadline.at);
    return deadline;
  }

  /** Cancels `deadline` (nothing happens if it expired or was deleted already). */
  delete(deadline: Deadline): void {
    if (!this.#pending.delete(deadline) || this.#pending.size > 0) return;
    // Nothing left to wait for: no timer outlives the work it guards.
    clearTimeout(this.#timer!);
    this.#timer = null;
    this.#armedAt = Infinity;
  }

  #arm(at: number): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#armedAt = at;
    this.#timer = setTimeout(this.#fire, Math.max(0, Math.ceil(at - performance.now())));
  }

  #fire = (): void => {
    this.#timer = null;
    this.#armedAt = Infinity;
    const now = performance.now();
    const due: Deadline[] = [];
    let next = Infinity;
    for (const deadline of this.#pending) {
      if (deadline.at <= now) due.push(deadline);
      else if (deadline.at < next) next = deadline.at;
    }
    for (const deadline of due) this.#pending.delete(deadline);
    if (this.#pending.size > 0) this.#arm(next);
    for (const deadline of due) deadline.onExpire();
  };
}
