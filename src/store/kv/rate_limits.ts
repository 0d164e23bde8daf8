/**
 * Rate-limit buckets in the process's memory, for the Deno KV backend (one process serves a
 * KV store, so its buckets are everyone's): one {@linkcode TokenBuckets} per family.
 *
 * @module
 */
import type { RateLimitPort, RateLimitRule } from "../ports/rate_limits.ts";

interface Bucket {
  tokens: number;
  updated: number;
}

/** Addresses tracked per family by default; the least recently seen is dropped past it. */
export const DEFAULT_MAX_TRACKED = 100_000;

/**
 * A family of token buckets, one per client address, holding at most `maxTracked` addresses:
 * past that, the least recently seen address is forgotten (O(1), by the map's order).
 *
 * @example
 * ```ts
 * const limiter = new TokenBuckets({ per_minute: 60, burst: 10 });
 * limiter.take("203.0.113.9"); // 0 when allowed, else seconds to wait
 * ```
 */
export class TokenBuckets {
  #buckets = new Map<string, Bucket>();
  #perMs: number;

  constructor(
    readonly rule: RateLimitRule,
    private now: () => number = Date.now,
    private maxTracked = DEFAULT_MAX_TRACKED,
  ) {
    this.#perMs = rule.per_minute / 60_000;
  }

  /** Addresses currently tracked. */
  get size(): number {
    return this.#buckets.size;
  }

  /** Takes one token for `key`: returns 0 when allowed, else the seconds until one is free. */
  take(key: string): number {
    const now = this.now();
    let bucket = this.#buckets.get(key);
    if (bucket) {
      // Most recently seen last: the first entry is always the one to forget.
      this.#buckets.delete(key);
    } else {
      if (this.#buckets.size >= this.maxTracked) {
        this.#buckets.delete(this.#buckets.keys().next().value!);
      }
      bucket = { tokens: this.rule.burst, updated: now };
    }
    this.#buckets.set(key, bucket);
    bucket.tokens = Math.min(
      this.rule.burst,
      bucket.tokens + (now - bucket.updated) * this.#perMs,
    );
    bucket.updated = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.#perMs / 1000));
  }
}

/**
 * The rate-limit port in memory: each family's buckets hold at most `maxTracked` addresses.
 * A family whose rule changes starts over with full buckets.
 *
 * @example
 * ```ts
 * const limits = new MemoryRateLimits({ maxTracked: 100_000 });
 * await limits.take("owner", "203.0.113.9", { per_minute: 1200, burst: 200 }); // 0
 * ```
 */
export class MemoryRateLimits implements RateLimitPort {
  #families = new Map<string, TokenBuckets>();

  constructor(
    private readonly options: { maxTracked?: number; now?: () => number } = {},
  ) {}

  take(family: string, key: string, rule: RateLimitRule): Promise<number> {
    let buckets = this.#families.get(family);
    if (
      !buckets || buckets.rule.per_minute !== rule.per_minute || buckets.rule.burst !== rule.burst
    ) {
      buckets = new TokenBuckets(rule, this.options.now, this.options.maxTracked);
      this.#families.set(family, buckets);
    }
    return Promise.resolve(buckets.take(key));
  }
}
