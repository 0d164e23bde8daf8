/**
 * HTTP/1.1 request heads: parsed strictly (RFC 9112), so that no two readers of the same
 * bytes can disagree about where a message ends (request smuggling).
 *
 * @module
 */

/** A malformed request; answered with `status` and the connection closed. */
export class BadRequest extends Error {
  override name = "BadRequest";
  constructor(readonly status: 400 | 501 | 505, message: string) {
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
  /** The Host header, or null. */
  host: string | null;
  framing: BodyFraming;
  /** Whether the client allows the connection to stay open after this exchange. */
  keepAlive: boolean;
  /** Whether the client waits for `100 Continue` before sending the body. */
  expectContinue: boolean;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Parses `head` (its text, read as Latin-1, without the blank line).
 *
 * @example
 * ```ts
 * const head = parseRequestHead("GET / HTTP/1.1\r\nHost: a");
 * head.method; // "GET"
 * ```
 */
export function parseRequestHead(head: string): RequestHead {
  const lines = head.split("\r\n");
  const parts = lines[0].split(" ");
  if (parts.length !== 3) throw new BadRequest(400, "Malformed request line");
  const [method, sent, version] = parts;
  // Absolute form (RFC 9112 section 3.2.2): the path and query are the target.
  const absolute = sent[0] === "/" ? null : /^https?:\/\/[^/?#]+([/?][^#]*)?$/i.exec(sent);
  const target = absolute
    ? (absolute[1]?.startsWith("/") ? absolute[1] : `/${absolute[1] ?? ""}`)
    : sent;
  if (!TOKEN.test(method)) throw new BadRequest(400, "Malformed method");
  const versionMatch = /^HTTP\/1\.([01])$/.exec(version);
  if (!versionMatch) {
    throw new BadRequest(/^HTTP\/\d/.test(version) ? 505 : 400, "Unsupported HTTP version");
  }
  if (!(target.startsWith("/") || (target === "*" && method === "OPTIONS"))) {
    throw new BadRequest(400, "Malformed request target");
  }
  // deno-lint-ignore no-control-regex -- control characters are what is refused
  if (/[\x00-\x20\x7f-\xff]/.test(target)) throw new BadRequest(400, "Malformed request target");
  // No prototype: a field named "__proto__" is a field like any other.
  const headers: Record<string, string> = Object.create(null);
  // The fields this layer reads itself, lowercased name → values.
  const own: Record<string, string[]> = {};
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(":");
    if (colon <= 0) throw new BadRequest(400, "Malformed header line");
    const name = line.slice(0, colon);
    if (!TOKEN.test(name)) throw new BadRequest(400, "Malformed header name");
    const value = line.slice(colon + 1).trim();
    // deno-lint-ignore no-control-regex -- control characters are what is refused
    if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) throw new BadRequest(400, "Malformed header value");
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    const lower = name.toLowerCase();
    if (OWN.has(lower)) (own[lower] ??= []).push(value);
  }
  const minor = Number(versionMatch[1]);
  const host = own.host?.[0] ?? null;
  if (minor === 1 && host === null) throw new BadRequest(400, "Missing Host header");
  if ((own.host?.length ?? 0) > 1) throw new BadRequest(400, "More than one Host header");
  const connection = (own.connection ?? []).join(",").toLowerCase().split(/\s*,\s*/);
  return {
    method,
    target,
    minor,
    headers,
    host,
    framing: framingOf(own["transfer-encoding"], own["content-length"]),
    keepAlive: minor === 1 ? !connection.includes("close") : connection.includes("keep-alive"),
    expectContinue: minor === 1 && own.expect?.[0]?.toLowerCase() === "100-continue",
  };
}

/** Header fields the parser keeps for itself. */
const OWN = new Set(["host", "connection", "content-length", "transfer-encoding", "expect"]);

function framingOf(encodings?: string[], lengths?: string[]): BodyFraming {
  if (encodings) {
    if (lengths) throw new BadRequest(400, "Both Transfer-Encoding and Content-Length");
    if (encodings.length !== 1 || encodings[0].toLowerCase() !== "chunked") {
      throw new BadRequest(501, "Unsupported Transfer-Encoding");
    }
    return { kind: "chunked" };
  }
  if (!lengths) return { kind: "none" };
  // Repeated fields (or a list in one) must all agree.
  const values = new Set(lengths.flatMap((value) => value.split(/\s*,\s*/)));
  const [only] = values;
  if (values.size !== 1 || !/^\d{1,15}$/.test(only)) {
    throw new BadRequest(400, "Malformed Content-Length");
  }
  const n = Number(only);
  return n === 0 ? { kind: "none" } : { kind: "length", length: n };
}
