/**
 * Requests that connect to an address already checked by the private-network guard, never
 * resolving the name again (no DNS-rebinding window between check and connect).
 *
 * `http:` goes through `fetch` with a client whose transport is a TCP connection to that
 * address (`Deno.createHttpClient`, proxy transport `tcp`): the URL, and so the `Host` header,
 * keep the name. That transport speaks plain HTTP only (measured on Deno 2.9.6: an `https:`
 * URL through it fails with "invalid HTTP version parsed"), so `https:` opens TCP to the
 * address, upgrades with `Deno.startTls` naming the host (SNI and certificate checked against
 * the name) and speaks HTTP/1.1 itself: one request, `Connection: close`, no pooling.
 *
 * @module
 */
import { ConnReader } from "../net/reader.ts";
import { RequestBody } from "../net/request_body.ts";
import type { BodyFraming } from "../net/request_head.ts";
import { writeAll } from "../net/response_writer.ts";

/** What {@link fetchPinned} sends. */
export interface PinnedRequest {
  method: string;
  headers: HeadersInit;
  body: Uint8Array | null;
  signal: AbortSignal;
  /** Extra root certificates (PEM) for `https:` (tests; private CAs). */
  caCerts?: string[];
}

const MAX_HEAD = 64 * 1024;

/**
 * Sends `init` to `url`, connecting to `address` (an IP) instead of resolving the URL's name.
 * Redirects are not followed. The response body streams from the connection.
 *
 * @example
 * ```ts
 * const response = await fetchPinned(new URL("https://hooks.example/x"), "93.184.216.34", {
 *   method: "POST", headers: {}, body: null, signal: AbortSignal.timeout(15_000),
 * });
 * ```
 */
export async function fetchPinned(
  url: URL,
  address: string,
  init: PinnedRequest,
): Promise<Response> {
  const hostname = address.replace(/^\[(.*)\]$/, "$1");
  if (url.protocol === "http:") {
    const client = Deno.createHttpClient({
      proxy: { transport: "tcp", hostname, port: Number(url.port || 80) },
    });
    try {
      const response = await fetch(url, {
        method: init.method,
        headers: init.headers,
        body: init.body as Uint8Array<ArrayBuffer> | null,
        redirect: "manual",
        signal: init.signal,
        client,
      });
      const body = response.body;
      if (!body) {
        client.close();
        return response;
      }
      // The client lives as long as the body is read.
      return new Response(closingWith(body, () => client.close()), response);
    } catch (err) {
      client.close();
      throw err;
    }
  }
  return await fetchPinnedTls(url, hostname, init);
}

async function fetchPinnedTls(url: URL, address: string, init: PinnedRequest): Promise<Response> {
  init.signal.throwIfAborted();
  let conn: Deno.Conn | null = null;
  const close = () => {
    try {
      conn?.close();
    } catch { /* closed */ }
  };
  const finish = () => {
    init.signal.removeEventListener("abort", close);
    close();
  };
  init.signal.addEventListener("abort", close, { once: true });
  try {
    const tcp = await Deno.connect({ hostname: address, port: Number(url.port || 443) });
    conn = tcp;
    conn = await Deno.startTls(tcp, { hostname: url.hostname, caCerts: init.caCerts });
    const headers = new Headers(init.headers);
    headers.set("host", url.host);
    headers.set("connection", "close");
    if (init.body) headers.set("content-length", String(init.body.byteLength));
    let head = `${init.method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
    for (const [name, value] of headers) head += `${name}: ${value}\r\n`;
    await writeAll(conn, new TextEncoder().encode(head + "\r\n"));
    if (init.body) await writeAll(conn, init.body);
    const reader = new ConnReader(conn);
    for (;;) {
      const text = await reader.readHead(MAX_HEAD);
      if (text === null) throw new Error("Connection closed before a response");
      const { status, headers: got } = parseResponseHead(text);
      if (status < 200) continue; // 100 Continue and other interim answers
      const framing = framingOf(status, init.method, got);
      if (framing !== "close" && framing.kind === "none") {
        finish();
        return new Response(null, { status, headers: got });
      }
      const body = framing === "close"
        ? untilClose(reader, conn)
        : new RequestBody(reader, framing).stream();
      return new Response(closingWith(body, finish), { status, headers: got });
    }
  } catch (err) {
    finish();
    if (init.signal.aborted) throw init.signal.reason;
    throw err;
  }
}

/** `body`, calling `finish` once it ends, fails or is cancelled. */
function closingWith(
  body: ReadableStream<Uint8Array>,
  finish: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      try {
        const step = await reader.read();
        if (step.done) {
          finish();
          controller.close();
        } else controller.enqueue(step.value);
      } catch (err) {
        finish();
        controller.error(err);
      }
    },
    cancel: async (reason) => {
      finish();
      await reader.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
}

/** Status and headers of a response head. */
function parseResponseHead(text: string): { status: number; headers: Headers } {
  const lines = text.split("\r\n");
  const match = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(lines[0]);
  if (!match) throw new Error("Malformed response status line");
  const headers = new Headers();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw new Error("Malformed response header");
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return { status: Number(match[1]), headers };
}

/** How the response body is framed; `close` = read until the server closes. */
function framingOf(status: number, method: string, headers: Headers): BodyFraming | "close" {
  if (method === "HEAD" || status === 204 || status === 304) return { kind: "none" };
  if (headers.get("transfer-encoding")?.toLowerCase().includes("chunked")) {
    return { kind: "chunked" };
  }
  const length = headers.get("content-length");
  if (length !== null && /^\d+$/.test(length.trim())) {
    const n = Number(length);
    return n === 0 ? { kind: "none" } : { kind: "length", length: n };
  }
  return "close";
}

/** The rest of the connection as a stream (responses framed by the server closing). */
function untilClose(reader: ConnReader, conn: Deno.Conn): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      try {
        controller.enqueue(await reader.readSome(64 * 1024));
      } catch {
        controller.close();
      }
    },
    cancel: () => conn.close(),
  }, { highWaterMark: 0 });
}
