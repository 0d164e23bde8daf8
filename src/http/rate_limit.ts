/**
 * Per-address token buckets.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { type AddressRanges, clientKey } from "../net/ip.ts";
import { clientIp } from "./client_ip.ts";
import { RateLimited } from "../errors/index.ts";

/** Rate and burst of one bucket family. */
export interface RateLimitRule {
  per_minute: number;
  burst: number;
}

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

/** Middleware answering 429 with `Retry-After` when the client's bucket is empty. */
export function rateLimit(
  buckets: TokenBuckets | null,
  trustedProxies: AddressRanges,
): MiddlewareHandler {
  return async (c, next) => {
    if (buckets) {
      const wait = buckets.take(clientKey(clientIp(c, trustedProxies)));
      if (wait > 0) {
        throw new RateLimited("rate_limited", `Too many requests; retry in ${wait} s`, wait);
      }
    }
    await next();
  };
}
