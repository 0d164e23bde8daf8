/**
 * Which timeout regime an exchange is held to, decided by the route the app serves (never by
 * the raw request target, so `/blobs/../submissions` cannot escape the request deadline): large
 * transfers follow the serving layer's throughput rule, everything else its request deadline.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import type { ExchangeInfo } from "../net/connection.ts";

/**
 * Middleware for the routes of large transfers (blob uploads and downloads, queue pages,
 * decrypted record files): tells the serving layer (`src/net`) to hold the exchange to the
 * throughput rule. Outside `src/net` (`app.request` in tests) it does nothing.
 *
 * @example
 * ```ts
 * app.use("/blobs/*", largeTransfer());
 * ```
 */
export function largeTransfer(methods?: string[]): MiddlewareHandler {
  return async (c, next) => {
    if (!methods || methods.includes(c.req.method)) {
      (c.env as Partial<ExchangeInfo> | undefined)?.holdToThroughput?.();
    }
    await next();
  };
}
