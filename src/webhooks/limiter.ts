/**
 * A per-key concurrency limit (requests in flight per webhook configuration), with a
 * bounded wait: a caller that cannot get a slot in time is told so and can come back later
 * instead of holding one of the queue's handler slots.
 *
 * @module
 */
import { Deadlines } from "./deadlines.ts";

interface Slot {
  active: number;
  waiters: (() => void)[];
}

/**
 * At most `limit` holders per key at once; waiters are served first come, first served.
 *
 * @example
 * ```ts
 * const limiter = new KeyedLimiter(8);
 * const release = await limiter.acquire("webhook-1", 1000);
 * if (release) try { await send(); } finally { release(); }
 * ```
 */
export class KeyedLimiter {
  #slots = new Map<string, Slot>();
  /** The waits' bounds, on one timer. */
  #deadlines = new Deadlines();

  constructor(private limit: number) {}

  /** A release function once a slot of `key` is free, or null after `waitMs` without one. */
  acquire(key: string, waitMs: number): Promise<(() => void) | null> {
    let slot = this.#slots.get(key);
    if (!slot) this.#slots.set(key, slot = { active: 0, waiters: [] });
    const held = slot;
    const release = () => {
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held.active--;
        const next = held.waiters.shift();
        if (next) next();
        else if (held.active === 0) this.#slots.delete(key);
      };
    };
    if (held.active < this.limit) {
      held.active++;
      return Promise.resolve(release());
    }
    return new Promise((resolve) => {
      const waiter = () => {
        this.#deadlines.delete(deadline);
        held.active++;
        resolve(release());
      };
      const deadline = this.#deadlines.add(waitMs, () => {
        held.waiters.splice(held.waiters.indexOf(waiter), 1);
        resolve(null);
      });
      held.waiters.push(waiter);
    });
  }

  /** Holders of `key` right now. */
  active(key: string): number {
    return this.#slots.get(key)?.active ?? 0;
  }
}
