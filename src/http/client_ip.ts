/**
 * The client's address, for rate limits.
 *
 * @module
 */
import type { Context } from "hono";

/**
 * The peer address of the connection, or with `trustProxy` the left-most
 * `X-Forwarded-For` entry.
 */
export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  const info = c.env as Deno.ServeHandlerInfo<Deno.NetAddr> | undefined;
  return info?.remoteAddr?.hostname ?? "unknown";
}
