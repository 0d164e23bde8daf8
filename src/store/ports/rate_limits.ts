/**
 * The rate-limit port: token buckets by family (a route family such as "submissions") and key
 * (a client address). Deno KV keeps them in the process's memory (one process serves a KV
 * store); PostgreSQL keeps them in a table every relay process shares, so N relays behind a
 * load balancer allow a client what one would.
 *
 * @module
 */

/** Rate and burst of one bucket family. */
export interface RateLimitRule {
  /** Sustained requests per minute and key. */
  per_minute: number;
  /** Requests a key may make at once before the rate applies (at least 1). */
  burst: number;
}

/**
 * Shared token buckets.
 *
 * @example
 * ```ts
 * const wait = await limits.take("submissions", "203.0.113.9", { per_minute: 60, burst: 10 });
 * if (wait > 0) console.log(`retry in ${wait} s`);
 * ```
 */
export interface RateLimitPort {
  /**
   * Takes one token from the bucket of `key` in `family` (a new bucket starts full, with
   * `rule.burst` tokens, refilled at `rule.per_minute`): 0 when allowed, else the whole seconds
   * (at least 1) until a token is free, and nothing is taken. Atomic: takes at once by any
   * number of callers (processes, on a shared store) never take more tokens than there are.
   */
  take(family: string, key: string, rule: RateLimitRule): Promise<number>;
}
