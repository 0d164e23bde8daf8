/**
 * HTTP/1.1 request heads: parsed strictly (RFC 9112, RFC 9110 section 5), never more leniently
 * than llhttp (Node's parser; `tests/net/differential_test.ts` compares the two case by case),
 * so that no two readers of the same bytes can disagree about where a message ends (request
 * smuggling).
 *
 * Parsing is the runtime's job; this one exists for the owned server. Delete it, and its
 * differential test, when `Deno.serve` replaces that server (see edge.ts).
 *
 * @module
 */

/** A malformed request; answered with `status` and the connection closed. */
export class BadRequest extends Error {
  override name = "BadRequest";
  constructor(readonly status: 400 | 431 | 501 | 505, message: string) {
    super(message);
  }
}

/** How the body of a request is framed. */
export type BodyFraming = { kind: "none" } | { kind: "length"; length: number } | {
  kind: "chunked";
};

/** A parsed request head. */
export interface RequestHead {
  method: string;
  /** The request target in origin form (`/path?query`; an absolute-form target reduced to it), or `*`. */
  target: string;
  /** Minor version: 1 for HTTP/1.1, 0 for HTTP/1.0. */
  minor: number;
  /**
   * The header fields by name as sent (a repeated name once, its values joined by ", " as
   * `Headers` joins them): a record is what `new Request` converts with the least work.
   */
  headers: Record<string, string>;
  /** The Host header (a valid host with an optional port), or null (HTTP/1.0 only). */
  host: string | null;
  framing: BodyFraming;
  /** Whether the client allows the connection to stay open after this exchange. */
  keepAlive: boolean;
  /** Whether the client waits for `100 Continue` before sending the body. */
  expectContinue: boolean;
}

/** Most header fields one request head (or one trailer section) may carry; 431 beyond. */
export const MAX_HEADER_FIELDS = 100;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * The methods served (RFC 9110 section 9 and PATCH); any other token is answered 501, as
 * llhttp refuses methods it does not know.
 */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]);
/** Bytes a field value may not hold: controls other than HTAB, and DEL (obs-text is kept). */
// deno-lint-ignore no-control-regex -- control characters are what is refused
const BAD_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/;
/** Bytes a request target may not hold: controls, space, DEL and every byte above ASCII. */
// deno-lint-ignore no-control-regex -- control characters are what is refused
const BAD_TARGET = /[\x00-\x20\x7f-\xff]/;
/**
 * `uri-host [":" port]` (RFC 9110 section 7.2): an IPv6 literal, or a registered name or IPv4
 * address of unreserved characters; the port, when present, 1 to 5 digits.
 */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~-]+)(?::\d{0,5})?$/;

/**
 * One field line (`name: value`, without its CRLF) split into its name and its value without
 * the optional whitespace around it; only SP and HTAB are optional whitespace (RFC 9110
 * section 5.6.3), so a VT, FF or NBSP beside a value is part of the value.
 */
export function parseFieldLine(line: string): [name: string, value: string] {
  const colon = line.indexOf(":");
  if (colon <= 0) throw new BadRequest(400, "Malformed header line");
  const name = line.slice(0, colon);
  if (!TOKEN.test(name)) throw new BadRequest(400, "Malformed header name");
  let from = colon + 1;
  let to = line.length;
  while (from < to && isOws(line.charCodeAt(from))) from++;
  while (to > from && isOws(line.charCodeAt(to - 1))) to--;
  const value = line.slice(from, to);
  if (BAD_VALUE.test(value)) throw new BadRequest(400, "Malformed header value");
  return [name, value];
}

function isOws(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/**
 * Parses `head` (its bytes as ISO-8859-1 text, one character a byte, CRLF line endings,
 * without the blank line).
 *
 * @example
 * ```ts
 * const head = parseRequestHead("GET / HTTP/1.1\r\nHost: a");
 * head.method; // "GET"
 * ```
 */
export function parseRequestHead(head: string): RequestHead {
  const lines = head.split("\r\n");
  if (lines.length - 1 > MAX_HEADER_FIELDS) throw new BadRequest(431, "Too many header fields");
  const parts = lines[0].split(" ");
  if (parts.length !== 3) throw new BadRequest(400, "Malformed request line");
  const [method, sent, version] = parts;
  if (!METHODS.has(method)) {
    throw new BadRequest(TOKEN.test(method) ? 501 : 400, "Unsupported method");
  }
  const versionMatch = /^HTTP\/1\.([01])$/.exec(version);
  if (!versionMatch) {
    throw new BadRequest(/^HTTP\/\d\.\d$/.test(version) ? 505 : 400, "Unsupported HTTP version");
  }
  if (BAD_TARGET.test(sent)) throw new BadRequest(400, "Malformed request target");
  // Absolute form (RFC 9112 section 3.2.2): the path and query are the target.
  const absolute = sent[0] === "/" ? null : /^https?:\/\/[^/?#]+([/?][^#]*)?$/i.exec(sent);
  const target = absolute
    ? (absolute[1]?.startsWith("/") ? absolute[1] : `/${absolute[1] ?? ""}`)
    : sent;
  if (!(target.startsWith("/") || (target === "*" && method === "OPTIONS"))) {
    throw new BadRequest(400, "Malformed request target");
  }
  // No prototype: a field named "__proto__" is a field like any other.
  const headers: Record<string, string> = Object.create(null);
  // The fields this layer reads itself, lowercased name → values.
  const own: Record<string, string[]> = {};
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const [name, value] = parseFieldLine(line);
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    const lower = name.toLowerCase();
    if (OWN.has(lower)) (own[lower] ??= []).push(value);
    // llhttp takes a tab after a framing value as part of it: refused, never trimmed away.
    if (FRAMING.has(lower) && line.endsWith("\t")) {
      throw new BadRequest(400, `Malformed ${name}`);
    }
  }
  const minor = Number(versionMatch[1]);
  if ((own.host?.length ?? 0) > 1) throw new BadRequest(400, "More than one Host header");
  const host = own.host?.[0] ?? null;
  if (minor === 1 && host === null) throw new BadRequest(400, "Missing Host header");
  if (host !== null && !validHost(host)) throw new BadRequest(400, "Malformed Host header");
  // A transfer coding in HTTP/1.0 is faulty framing (RFC 9112 section 6.1).
  if (minor === 0 && own["transfer-encoding"]) {
    throw new BadRequest(400, "Transfer-Encoding in an HTTP/1.0 request");
  }
  const connection = (own.connection ?? []).join(",").toLowerCase().split(/[ \t]*,[ \t]*/);
  // After an Upgrade request the bytes belong to another protocol (RFC 9110 section 7.8): none
  // of it is parsed as HTTP; the answer closes the connection.
  const upgrade = connection.includes("upgrade") && own.upgrade !== undefined;
  return {
    method,
    target,
    minor,
    headers,
    host,
    framing: framingOf(own["transfer-encoding"], own["content-length"]),
    keepAlive: !upgrade &&
      (minor === 1 ? !connection.includes("close") : connection.includes("keep-alive")),
    expectContinue: minor === 1 && own.expect?.[0]?.toLowerCase() === "100-continue",
  };
}

/** Header fields the parser keeps for itself. */
const OWN = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "expect",
  "upgrade",
]);

/** The fields that frame a message: never allowed in a trailer section. */
export const FRAMING = new Set(["content-length", "transfer-encoding"]);

function validHost(host: string): boolean {
  if (!HOST.test(host)) return false;
  const colon = host.lastIndexOf(":");
  if (colon > host.lastIndexOf("]")) {
    const port = host.slice(colon + 1);
    if (port === "" || Number(port) > 65535) return false;
  }
  return true;
}

function framingOf(encodings?: string[], lengths?: string[]): BodyFraming {
  if (encodings) {
    if (lengths) throw new BadRequest(400, "Both Transfer-Encoding and Content-Length");
    if (encodings.length !== 1 || encodings[0].toLowerCase() !== "chunked") {
      throw new BadRequest(501, "Unsupported Transfer-Encoding");
    }
    return { kind: "chunked" };
  }
  if (!lengths) return { kind: "none" };
  // One field of digits only: a repeated field or a list is refused, as llhttp refuses it.
  if (lengths.length !== 1 || !/^\d{1,15}$/.test(lengths[0])) {
    throw new BadRequest(400, "Malformed Content-Length");
  }
  const n = Number(lengths[0]);
  return n === 0 ? { kind: "none" } : { kind: "length", length: n };
}
