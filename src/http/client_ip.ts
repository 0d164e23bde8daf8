/**
 * The client's address, for rate limits.
 *
 * @module
 */
import type { Context } from "hono";
import { type AddressRanges, parseIpv4, parseIpv6 } from "../net/ip.ts";

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

/**
 * The rate-limit key of an address: IPv6 addresses by their /64 (one subscriber usually holds
 * a whole /64), everything else as is.
 *
 * @example
 * ```ts
 * rateLimitKey("2001:db8:1:2:aaaa::1"); // "2001:db8:1:2::/64"
 * rateLimitKey("203.0.113.9"); // "203.0.113.9"
 * ```
 */
export function rateLimitKey(address: string): string {
  if (parseIpv4(address) !== null) return address;
  const groups = parseIpv6(address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, ""));
  if (!groups) return address;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6] >>> 8}.${groups[6] & 0xff}.${groups[7] >>> 8}.${groups[7] & 0xff}`;
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`;
}
