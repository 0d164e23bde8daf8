/**
 * The client's address, for rate limits.
 *
 * @module
 */
import type { Context } from "hono";
import type { AddressRanges } from "../ip/address.ts";

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
  const peer = peerAddress(c);
  if (!trusted.has(peer)) return peer;
  const hops = (c.req.header("x-forwarded-for") ?? "").split(",").map((hop) => hop.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!trusted.has(hops[i])) return hops[i].slice(0, MAX_ADDRESS);
  }
  return (hops[0] ?? peer).slice(0, MAX_ADDRESS);
}

/** The connection's peer address ("unknown" outside a server, e.g. `app.request`). */
function peerAddress(c: Context): string {
  const info = c.env as Deno.ServeHandlerInfo<Deno.NetAddr> | undefined;
  return info?.remoteAddr?.hostname ?? "unknown";
}

/**
 * Whether the request came through one of the `trusted` proxies (so its forwarding headers,
 * such as `X-Forwarded-Proto`, are the proxy's and not the client's).
 *
 * @example
 * ```ts
 * viaTrustedProxy(c, new AddressRanges(["127.0.0.1"])); // true behind a local proxy
 * ```
 */
export function viaTrustedProxy(c: Context, trusted: AddressRanges): boolean {
  return trusted.has(peerAddress(c));
}
