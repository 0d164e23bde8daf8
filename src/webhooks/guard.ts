/**
 * The optional private-network guard (`webhooks.block_private_networks`): refuses loopback,
 * private, link-local, metadata and other non-public addresses, checked after DNS
 * resolution.
 *
 * IPv6 forms that embed an IPv4 address (mapped, compatible, 6to4, Teredo, NAT64) are refused
 * outright. A name is resolved once, here, and the request then connects to the very address
 * that was checked (src/webhooks/pinned.ts), so there is no second lookup to rebind.
 *
 * @module
 */
import { parseIpv4, parseIpv6 } from "../ip/address.ts";

/** [first address, prefix length] of each refused IPv4 range. */
const IPV4_BLOCKED: [number, number][] = [
  [0x00000000, 8], // 0.0.0.0/8 "this network"
  [0x0a000000, 8], // 10.0.0.0/8 private
  [0x64400000, 10], // 100.64.0.0/10 carrier-grade NAT (Alibaba metadata 100.100.100.200)
  [0x7f000000, 8], // 127.0.0.0/8 loopback
  [0xa9fe0000, 16], // 169.254.0.0/16 link-local (cloud metadata 169.254.169.254)
  [0xac100000, 12], // 172.16.0.0/12 private
  [0xc0000000, 24], // 192.0.0.0/24 IETF protocol assignments
  [0xc0586300, 24], // 192.88.99.0/24 6to4 relay anycast
  [0xc0a80000, 16], // 192.168.0.0/16 private
  [0xc6120000, 15], // 198.18.0.0/15 benchmarking
  [0xe0000000, 4], // 224.0.0.0/4 multicast
  [0xf0000000, 4], // 240.0.0.0/4 reserved, broadcast
];

function ipv4Blocked(n: number): boolean {
  return IPV4_BLOCKED.some(([base, bits]) => (n >>> (32 - bits)) === (base >>> (32 - bits)));
}

/**
 * IPv6 forms that carry an IPv4 address (and so could reach any IPv4 host through a
 * translator or tunnel, past the IPv4 checks): refused outright, whatever they embed.
 */
function embedsIpv4(g: number[]): boolean {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  return zeros(0, 6) || // ::/96 IPv4-compatible (and ::, ::1)
    (zeros(0, 5) && g[5] === 0xffff) || // ::ffff:0:0/96 IPv4-mapped
    (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) || // ::ffff:0:0:0/96 IPv4-translated
    (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) || // 64:ff9b::/96 NAT64
    (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) || // 64:ff9b:1::/48 local NAT64
    g[0] === 0x2002 || // 2002::/16 6to4
    (g[0] === 0x2001 && g[1] === 0); // 2001::/32 Teredo
}

function ipv6Blocked(g: number[]): boolean {
  return embedsIpv4(g) ||
    (g[0] & 0xfe00) === 0xfc00 || // fc00::/7 unique local (AWS metadata fd00:ec2::254)
    (g[0] & 0xffc0) === 0xfe80 || // fe80::/10 link-local
    (g[0] & 0xffc0) === 0xfec0 || // fec0::/10 site-local
    (g[0] & 0xff00) === 0xff00; // ff00::/8 multicast
}

/**
 * Whether `address` (IPv4 or IPv6, brackets allowed) is one the guard refuses. Text that is
 * not an IP address is refused too.
 *
 * @example
 * ```ts
 * isBlockedAddress("169.254.169.254"); // true
 * isBlockedAddress("[::ffff:10.0.0.1]"); // true
 * isBlockedAddress("93.184.216.34"); // false
 * ```
 */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  const v4 = parseIpv4(bare);
  if (v4 !== null) return ipv4Blocked(v4);
  const v6 = parseIpv6(bare);
  return v6 === null || ipv6Blocked(v6);
}

/** Whether `host` (a URL hostname) is an IP literal. */
function isIpLiteral(host: string): boolean {
  return parseIpv4(host) !== null || host.startsWith("[");
}

/**
 * What the guard decided: go (to `address`, the checked address to connect to, for a name;
 * absent for an IP literal), refused (a configuration problem), or unresolvable.
 */
export type GuardVerdict =
  | { ok: true; address?: string }
  | { ok: false; permanent: boolean; error: string };

/** Resolves names to addresses; `Deno.resolveDns` by default. */
export type Resolver = (host: string, type: "A" | "AAAA") => Promise<string[]>;

const systemResolver: Resolver = (host, type) => Deno.resolveDns(host, type);

/**
 * Checks the destination of `url`: an IP literal directly, `localhost` names as loopback,
 * other names after resolving their A and AAAA records once (every address must be public;
 * the first is the one to connect to).
 *
 * @example
 * ```ts
 * await checkDestination(new URL("http://127.0.0.1/")); // { ok: false, permanent: true, ... }
 * ```
 */
export async function checkDestination(
  url: URL,
  resolve: Resolver = systemResolver,
): Promise<GuardVerdict> {
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const refuse = (what: string): GuardVerdict => ({
    ok: false,
    permanent: true,
    error: `Refused: ${what} is not a public address (webhooks.block_private_networks is on)`,
  });
  if (isIpLiteral(host)) return isBlockedAddress(host) ? refuse(host) : { ok: true };
  if (host === "localhost" || host.endsWith(".localhost")) return refuse(host);
  const results = await Promise.allSettled([resolve(host, "A"), resolve(host, "AAAA")]);
  const addresses = results.flatMap((r) => (r.status === "fulfilled" ? r.value : []));
  if (addresses.length === 0) {
    return { ok: false, permanent: false, error: `Cannot resolve host "${host}"` };
  }
  const blocked = addresses.find(isBlockedAddress);
  return blocked ? refuse(`${host} (${blocked})`) : { ok: true, address: addresses[0] };
}
