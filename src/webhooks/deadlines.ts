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

  /**
   * `unref`: the timer does not keep the process alive (for deadlines of work that does,
   * such as a request's).
   */
  constructor(private unref = false) {}

  /** Calls `onExpire` in `ms` milliseconds unless the returned deadline is deleted first. */
  add(ms: number, onExpire: () => void): Deadline {
    const deadline = { at: performance.now() + ms, onExpire };
    this.#pending.add(deadline);
    if (deadline.at < this.#armedAt) this.#arm(deadline.at);
    return deadline;
  }

  /** Deadlines not yet due nor deleted. */
  get size(): number {
    return this.#pending.size;
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
    if (this.unref) Deno.unrefTimer(this.#timer);
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
    // A late timer finds several due at once: they expire in the order they were due.
    due.sort((a, b) => a.at - b.at);
    for (const deadline of due) deadline.onExpire();
  };
}

/** A timeout signal taken with {@linkcode TimeoutSignals.take}. */
export interface TimeoutLease {
  /** Aborts with a `TimeoutError` once the timeout has passed. */
  readonly signal: AbortSignal;
}

interface Window extends TimeoutLease {
  readonly timeoutMs: number;
  readonly deadline: Deadline;
  /** Until when (`performance.now()` ms) new requests join this window. */
  readonly openUntil: number;
  /** Leases not yet given back. */
  users: number;
}

/**
 * Timeout signals shared by the requests that start within the same window (a tenth of the
 * timeout, at most `maxWindowMs`, default 100): one controller and one deadline per window
 * instead of one of each per request. A signal aborts no earlier than `timeoutMs` after its
 * request started, and at most a window later. A window is dropped with its deadline once it
 * has closed and its leases are all given back (an open one stays for the next request even
 * when none is out), else when its deadline comes.
 *
 * @example
 * ```ts
 * const timeouts = new TimeoutSignals();
 * const lease = timeouts.take(15_000);
 * try {
 *   await fetch("http://127.0.0.1:8080/", { signal: lease.signal });
 * } finally {
 *   timeouts.give(lease);
 * }
 * ```
 */
export class TimeoutSignals {
  /** Unreferenced: a request keeps the process alive; an idle window's timer need not. */
  #deadlines = new Deadlines(true);
  /** The open window of each timeout length. */
  #open = new Map<number, Window>();

  constructor(private maxWindowMs = 100) {}

  /** A signal that aborts `timeoutMs` (to `timeoutMs` and a window) from now. */
  take(timeoutMs: number): TimeoutLease {
    const now = performance.now();
    let window = this.#open.get(timeoutMs);
    if (!window || now >= window.openUntil) {
      const windowMs = Math.min(this.maxWindowMs, timeoutMs / 10);
      const controller = new AbortController();
      const deadline = this.#deadlines.add(timeoutMs + windowMs, () => {
        this.#drop(opened);
        controller.abort(new DOMException("Signal timed out.", "TimeoutError"));
      });
      const opened: Window = {
        signal: controller.signal,
        timeoutMs,
        deadline,
        openUntil: now + windowMs,
        users: 0,
      };
      this.#open.set(timeoutMs, window = opened);
    }
    window.users++;
    return window;
  }

  /** Windows armed: open ones, and closed ones with leases out. */
  get size(): number {
    return this.#deadlines.size;
  }

  /** Gives `lease` back: its request is done. */
  give(lease: TimeoutLease): void {
    const window = lease as Window;
    if (--window.users > 0 || performance.now() < window.openUntil) return;
    this.#deadlines.delete(window.deadline);
    this.#drop(window);
  }

  #drop(window: Window): void {
    if (this.#open.get(window.timeoutMs) === window) this.#open.delete(window.timeoutMs);
  }
}
