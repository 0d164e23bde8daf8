/**
 * Per-address token buckets.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { clientIp } from "./client_ip.ts";
import { ApiError } from "./errors.ts";

/** Rate and burst of one bucket family. */
export interface RateLimitRule {
  per_minute: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  updated: number;
}

/**
 * A family of token buckets, one per client address.
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

  constructor(readonly rule: RateLimitRule, private now: () => number = Date.now) {
    this.#perMs = rule.per_minute / 60_000;
  }

  /** Takes one token for `key`: returns 0 when allowed, else the seconds until one is free. */
  take(key: string): number {
    const now = this.now();
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      if (this.#buckets.size > 100_000) this.#prune(now);
      bucket = { tokens: this.rule.burst, updated: now };
      this.#buckets.set(key, bucket);
    }
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

  /** Drops buckets that have refilled completely (they hold no state worth keeping). */
  #prune(now: number) {
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + (now - bucket.updated) * this.#perMs >= this.rule.burst) {
        this.#buckets.delete(key);
      }
    }
  }
}

/** Middleware answering 429 with `Retry-After` when the client's bucket is empty. */
export function rateLimit(buckets: TokenBuckets | null, trustProxy: boolean): MiddlewareHandler {
  return async (c, next) => {
    if (buckets) {
      const wait = buckets.take(clientIp(c, trustProxy));
      if (wait > 0) {
        throw new ApiError(
          429,
          "rate_limited",
          `Too many requests; retry in ${wait} s`,
          undefined,
          { "Retry-After": String(wait) },
        );
      }
    }
    await next();
  };
}
