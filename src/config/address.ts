/**
 * The public address (`base_url`) as the world sees it: whether two spellings name the same
 * address (a manifest carries an old one when the instance moved), what kind of host an
 * address names, and when the address the forms carry cannot work for senders elsewhere.
 *
 * @module
 */
import { AddressRanges } from "../ip/address.ts";

const LOOPBACK = new AddressRanges(["127.0.0.0/8", "::1"]);
const PRIVATE = new AddressRanges([
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "::",
  "fc00::/7",
  "fe80::/10",
]);
/** Name endings no public DNS answers for (RFC 6761, 6762, 7686, 8375, ICANN's `.internal`). */
const PRIVATE_SUFFIXES = [".local", ".onion", ".internal", ".lan", ".home.arpa", ".localdomain"];

/** What an address's host is, for the warnings. */
export type HostKind = "loopback" | "private" | "public";

/**
 * The kind of `host` (a URL hostname or a listening address; IPv6 with or without brackets):
 * loopback (`127.0.0.0/8`, `::1`, `localhost`), private (private, link-local and unspecified
 * ranges, a name without a dot, `.local`, `.onion` and the like) or public.
 *
 * @example
 * ```ts
 * hostKind("127.0.0.1"); // "loopback"
 * hostKind("printer.local"); // "private"
 * hostKind("forms.example.org"); // "public"
 * ```
 */
export function hostKind(host: string): HostKind {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
  if (LOOPBACK.has(name) || name === "localhost" || name.endsWith(".localhost")) {
    return "loopback";
  }
  if (PRIVATE.has(name)) return "private";
  if (/^[\d.]+$/.test(name) || name.includes(":")) return "public"; // another IP address
  if (!name.includes(".") || PRIVATE_SUFFIXES.some((s) => name.endsWith(s))) return "private";
  return "public";
}

/**
 * The canonical spelling of a base URL: scheme and host lower case, default port dropped,
 * no trailing slash. Text that is no URL stays as it is, without trailing slashes.
 *
 * @example
 * ```ts
 * canonicalAddress("HTTPS://Forms.Example.org:443/"); // "https://forms.example.org"
 * ```
 */
export function canonicalAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`;
  } catch {
    return url.trim().replace(/\/+$/, "");
  }
}

/**
 * Whether two base URLs name the same address (see {@link canonicalAddress}).
 *
 * @example
 * ```ts
 * sameAddress("http://127.0.0.1:8080/", "http://127.0.0.1:8080"); // true
 * ```
 */
export function sameAddress(a: string, b: string): boolean {
  return canonicalAddress(a) === canonicalAddress(b);
}

/** Why the address the forms carry will not work for senders elsewhere. */
export type AddressWarning =
  /** A loopback address, while the server listens where other machines reach it. */
  | { kind: "loopback"; address: string; listen: string }
  /** Plain `http:` on a public name: the form page and its key can be changed on the way. */
  | { kind: "plain_http"; address: string };

/**
 * The warning about `address` (the base URL published forms carry), or null. `listen` is the
 * listening host (`server.host`), or null when it says nothing about the address (a vault
 * whose forms carry its relay's address).
 *
 * @example
 * ```ts
 * addressWarning("http://127.0.0.1:8080", "0.0.0.0"); // { kind: "loopback", … }
 * addressWarning("http://forms.example.org", "0.0.0.0"); // { kind: "plain_http", … }
 * addressWarning("https://forms.example.org", "0.0.0.0"); // null
 * ```
 */
export function addressWarning(address: string, listen: string | null): AddressWarning | null {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return null;
  }
  const kind = hostKind(url.hostname);
  if (kind === "loopback" && listen !== null && hostKind(listen) !== "loopback") {
    return { kind: "loopback", address: canonicalAddress(address), listen };
  }
  if (kind === "public" && url.protocol === "http:") {
    return { kind: "plain_http", address: canonicalAddress(address) };
  }
  return null;
}
