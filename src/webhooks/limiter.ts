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
  /** The limit the latest acquisition of the key gave. */
  limit: number;
  waiters: (() => void)[];
}

/**
 * At most `limit` holders per key at once; waiters are served first come, first served.
 * Each acquisition names the key's limit, and the latest one given is the key's limit from
 * then on: lowered, it holds back new holders (and waiters) until enough holders release;
 * raised, it lets waiters in at once. Holders never lose their slot.
 *
 * @example
 * ```ts
 * const limiter = new KeyedLimiter();
 * const release = await limiter.acquire("webhook-1", 8, 1000);
 * if (release) try { await send(); } finally { release(); }
 * ```
 */
export class KeyedLimiter {
  #slots = new Map<string, Slot>();
  /** The waits' bounds, on one timer. */
  #deadlines = new Deadlines();

  /**
   * A release function once a slot of `key` is free under `limit` (an integer, at least 1),
   * or null after `waitMs` without one.
   *
   * @throws {RangeError} when `limit` is not a positive integer.
   */
  acquire(key: string, limit: number, waitMs: number): Promise<(() => void) | null> {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`A limit is a positive integer, not ${limit}`);
    }
    let slot = this.#slots.get(key);
    if (!slot) this.#slots.set(key, slot = { active: 0, limit, waiters: [] });
    const held = slot;
    held.limit = limit;
    this.#serve(held); // A raised limit may let earlier waiters in.
    const release = () => {
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held.active--;
        this.#serve(held);
        if (held.active === 0 && held.waiters.length === 0) this.#slots.delete(key);
      };
    };
    if (held.waiters.length === 0 && held.active < held.limit) {
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
        if (held.active === 0 && held.waiters.length === 0) this.#slots.delete(key);
        resolve(null);
      });
      held.waiters.push(waiter);
    });
  }

  /** Lets waiters of `slot` in, oldest first, while its limit allows. */
  #serve(slot: Slot): void {
    while (slot.waiters.length > 0 && slot.active < slot.limit) slot.waiters.shift()!();
  }

  /** Holders of `key` right now. */
  active(key: string): number {
    return this.#slots.get(key)?.active ?? 0;
  }
}
