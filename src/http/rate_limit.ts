/**
 * Per-address rate limits: token buckets taken through the rate-limit port
 * (src/store/ports/rate_limits.ts), in memory on Deno KV and shared by every relay on
 * PostgreSQL.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { type AddressRanges, clientKey } from "../ip/address.ts";
import { clientIp } from "./client_ip.ts";
import { RateLimited } from "../errors/index.ts";
import type { RateLimitPort, RateLimitRule } from "../store/ports/rate_limits.ts";

export type { RateLimitRule };

/** One bucket family: where its buckets live, its name there, and its rule. */
export interface Limiter {
  port: RateLimitPort;
  /** Routes of one family share a client's bucket; another family has its own. */
  family: string;
  rule: RateLimitRule;
}

/**
 * Middleware answering 429 with `Retry-After` when the client's bucket of `limiter`'s family
 * is empty; no limit when `limiter` is null (rate limits off).
 *
 * @example
 * ```ts
 * const limit = { port: new MemoryRateLimits(), family: "owner", rule: { per_minute: 60, burst: 10 } };
 * app.use("/owner/*", rateLimit(limit, new AddressRanges([])));
 * ```
 */
export function rateLimit(
  limiter: Limiter | null,
  trustedProxies: AddressRanges,
): MiddlewareHandler {
  if (!limiter) return (_c, next) => next();
  return async (c, next) => {
    const key = clientKey(clientIp(c, trustedProxies));
    const wait = await limiter.port.take(limiter.family, key, limiter.rule);
    if (wait > 0) {
      throw new RateLimited("rate_limited", `Too many requests; retry in ${wait} s`, wait);
    }
    await next();
  };
}
