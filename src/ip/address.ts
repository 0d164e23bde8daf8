/**
 * IP addresses and CIDR ranges (IPv4 and IPv6): parsing and matching, for trusted proxies
 * and the webhook private-network guard.
 *
 * @module
 */

/**
 * A dotted IPv4 address as an unsigned 32-bit number, or null.
 *
 * @example
 * ```ts
 * parseIpv4("10.0.0.1"); // 167772161
 * ```
 */
export function parseIpv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    n = n * 256 + Number(part);
  }
  return n;
}

/**
 * The 8 groups of an IPv6 address (an embedded dotted IPv4 tail allowed), or null.
 *
 * @example
 * ```ts
 * parseIpv6("::ffff:10.0.0.1"); // [0, 0, 0, 0, 0, 0xffff, 0x0a00, 0x0001]
 * ```
 */
export function parseIpv6(text: string): number[] | null {
  let head = text;
  const tail: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseIpv4(dotted[2]);
    if (v4 === null) return null;
    head = dotted[1].endsWith("::") ? dotted[1] : dotted[1].slice(0, -1);
    tail.push(v4 >>> 16, v4 & 0xffff);
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const groups = (s: string) => (s === "" ? [] : s.split(":"));
  const left = groups(halves[0]);
  const right = halves.length === 2 ? groups(halves[1]) : [];
  if ([...left, ...right].some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  const given = left.length + right.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  const zeros = new Array(8 - given).fill(0);
  return [...left, ...zeros, ...right].map((g) => (typeof g === "number" ? g : parseInt(g, 16)))
    .concat(tail);
}

/** An address without brackets or zone (`[fe80::1%eth0]` → `fe80::1`). */
function bare(address: string): string {
  return address.trim().replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
}

/**
 * The 8 groups of any address, IPv4 as IPv4-mapped IPv6 (`::ffff:a.b.c.d`), so that both
 * spellings of one IPv4 peer match the same ranges; null when not an address.
 */
function groupsOf(address: string): number[] | null {
  const text = bare(address);
  const v4 = parseIpv4(text);
  if (v4 !== null) return [0, 0, 0, 0, 0, 0xffff, v4 >>> 16, v4 & 0xffff];
  return parseIpv6(text);
}

/** A range: its first address's groups and its prefix length out of 128. */
interface Cidr {
  groups: number[];
  bits: number;
}

function parseCidr(text: string): Cidr | null {
  const [address, prefix, extra] = text.trim().split("/");
  if (extra !== undefined) return null;
  const groups = groupsOf(address);
  if (!groups) return null;
  const v4 = parseIpv4(bare(address)) !== null;
  const max = v4 ? 32 : 128;
  if (prefix !== undefined && !/^\d{1,3}$/.test(prefix)) return null;
  const bits = prefix === undefined ? max : Number(prefix);
  if (bits > max) return null;
  return { groups, bits: v4 ? bits + 96 : bits };
}

function contains(range: Cidr, groups: number[]): boolean {
  let left = range.bits;
  for (let i = 0; i < 8 && left > 0; i++, left -= 16) {
    const take = Math.min(16, left);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if ((range.groups[i] & mask) !== (groups[i] & mask)) return false;
  }
  return true;
}

/**
 * Whether `text` is an IP address or a CIDR range (`10.0.0.0/8`, `2001:db8::/32`).
 *
 * @example
 * ```ts
 * isAddressOrCidr("192.168.0.0/16"); // true
 * isAddressOrCidr("proxy.local"); // false
 * ```
 */
export function isAddressOrCidr(text: string): boolean {
  return parseCidr(text) !== null;
}

/**
 * A set of addresses and ranges; IPv4 and IPv4-mapped IPv6 spellings match alike.
 *
 * @example
 * ```ts
 * const proxies = new AddressRanges(["10.0.0.0/8", "::1"]);
 * proxies.has("10.1.2.3"); // true
 * proxies.has("::ffff:10.1.2.3"); // true
 * ```
 */
export class AddressRanges {
  #ranges: Cidr[];

  /** Throws on an entry that is neither an address nor a CIDR range. */
  constructor(entries: readonly string[]) {
    this.#ranges = entries.map((entry) => {
      const range = parseCidr(entry);
      if (!range) throw new TypeError(`Not an IP address or CIDR range: "${entry}"`);
      return range;
    });
  }

  /** Whether there are no entries. */
  get empty(): boolean {
    return this.#ranges.length === 0;
  }

  /** Whether `address` lies in one of the ranges (false for text that is no address). */
  has(address: string): boolean {
    if (this.#ranges.length === 0) return false;
    const groups = groupsOf(address);
    return groups !== null && this.#ranges.some((range) => contains(range, groups));
  }
}

/**
 * The key that counts one client, for rate limits and the per-address connection cap: IPv6
 * addresses by their /64 (one subscriber usually holds a whole /64), IPv4-mapped IPv6 as the
 * IPv4 address, everything else as is.
 *
 * @example
 * ```ts
 * clientKey("2001:db8:1:2:aaaa::1"); // "2001:db8:1:2::/64"
 * clientKey("203.0.113.9"); // "203.0.113.9"
 * ```
 */
export function clientKey(address: string): string {
  if (parseIpv4(address) !== null) return address;
  const groups = parseIpv6(address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, ""));
  if (!groups) return address;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6] >>> 8}.${groups[6] & 0xff}.${groups[7] >>> 8}.${groups[7] & 0xff}`;
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`;
}
