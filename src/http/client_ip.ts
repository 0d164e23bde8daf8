/**
 * The client's address, for rate limits.
 *
 * @module
 */
import type { Context } from "hono";
import type { AddressRanges } from "../net/ip.ts";

/** Longest address text kept (an X-Forwarded-For hop is whatever the proxy wrote). */
const MAX_ADDRESS = 64;

/**
 * The client's address: the connection's peer, or, when that peer is one of the `trusted`
 * proxies, the right-most `X-Forwarded-For` hop that is not a trusted proxy (each proxy
 * appends the address it saw, so hops left of that one are whatever the client sent).
 *
 * @example
 * ```ts
 * // Peer 10.0.0.2 (trusted), X-Forwarded-For: "1.1.1.1, 203.0.113.9, 10.0.0.7"
 * clientIp(c, new AddressRanges(["10.0.0.0/8"])); // "203.0.113.9"
 * ```
 */
export function clientIp(c: Context, trusted: AddressRanges): string {
  const info = c.env as Deno.ServeHandlerInfo<Deno.NetAddr> | undefined;
  const peer = info?.remoteAddr?.hostname ?? "unknown";
  if (!trusted.has(peer)) return peer;
  const hops = (c.req.header("x-forwarded-for") ?? "").split(",").map((hop) => hop.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!trusted.has(hops[i])) return hops[i].slice(0, MAX_ADDRESS);
  }
  return (hops[0] ?? peer).slice(0, MAX_ADDRESS);
}
