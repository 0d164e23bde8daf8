/**
 * Requests that connect to an address already checked by the private-network guard, never
 * resolving the name again (no DNS-rebinding window between check and connect).
 *
 * `http:` goes through `fetch` with a client whose transport is a TCP connection to that
 * address (`Deno.createHttpClient`, proxy transport `tcp`): the URL, and so the `Host` header,
 * keep the name. That transport speaks plain HTTP only (measured on Deno 2.9.6: an `https:`
 * URL through it fails with "invalid HTTP version parsed").
 *
 * `https:` opens TCP to the address and upgrades with `Deno.startTls` naming the host (SNI and
 * certificate checked against the name, with the roots every other Deno connection trusts,
 * `DENO_CERT` included, and `caCerts` added to them); `node:http` then speaks HTTP/1.1 over
 * that connection (`createConnection`): one request, `Connection: close`, interim 1xx answers
 * skipped, redirects not followed, a response head of at most 64 KiB, the body streamed.
 *
 * Why not `node:https` alone, with `host` the address and `servername` the name (measured on
 * Deno 2.9.6): it checks the certificate against the name as well, but `node:tls` trusts other
 * roots: it ignores `DENO_CERT` (a receiver whose CA comes from there fails with
 * "self-signed certificate"), and its `ca` option replaces the default roots instead of
 * adding to them.
 *
 * Delete this module when `fetch` can be told the address to connect to for a URL's name,
 * over TLS too (a resolve or lookup option on `Deno.createHttpClient`): both schemes then go
 * through `fetch` with that client. Until then, the `https:` half shrinks to one
 * `node:https` request once `node:tls` trusts what `Deno.startTls` trusts.
 *
 * @module
 */
import { type IncomingMessage, request } from "node:http";
import { Duplex, Readable } from "node:stream";

/** What {@link fetchPinned} sends. */
export interface PinnedRequest {
  method: string;
  headers: HeadersInit;
  body: Uint8Array | null;
  signal: AbortSignal;
  /** Extra root certificates (PEM) for `https:` (tests; private CAs). */
  caCerts?: string[];
}

/** Longest response head read (status line and headers). */
const MAX_HEAD = 64 * 1024;

/** Statuses whose response has no body (`Response` refuses one for them). */
const NULL_BODY = new Set([204, 205, 304]);

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
  const hostname = unbracketed(address);
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
      return new Response(closingWith(body, init.signal, () => client.close()), response);
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
    const port = Number(url.port || 443);
    const tcp = await Deno.connect({ hostname: address, port, signal: init.signal });
    conn = tcp;
    conn = await Deno.startTls(tcp, {
      hostname: unbracketed(url.hostname),
      caCerts: init.caCerts,
    });
    const answer = await exchange(conn, url, init);
    const headers = new Headers();
    for (let i = 0; i < answer.rawHeaders.length; i += 2) {
      headers.append(answer.rawHeaders[i], answer.rawHeaders[i + 1]);
    }
    const status = answer.statusCode!;
    if (init.method === "HEAD" || NULL_BODY.has(status)) {
      finish();
      return new Response(null, { status, headers });
    }
    const body = Readable.toWeb(answer) as ReadableStream<Uint8Array>;
    return new Response(closingWith(body, init.signal, finish), { status, headers });
  } catch (err) {
    finish();
    if (init.signal.aborted) throw init.signal.reason;
    throw err;
  }
}

/** Writes the request on `conn` with `node:http` and reads the response head. */
function exchange(conn: Deno.Conn, url: URL, init: PinnedRequest): Promise<IncomingMessage> {
  const headers = new Headers(init.headers);
  headers.set("host", url.host);
  if (init.body) headers.set("content-length", String(init.body.byteLength));
  const socket = Duplex.fromWeb({ readable: conn.readable, writable: conn.writable });
  return new Promise((resolve, reject) => {
    const outgoing = request({
      createConnection: () => socket,
      method: init.method,
      path: url.pathname + url.search,
      headers: Object.fromEntries(headers),
      maxHeaderSize: MAX_HEAD,
    }, resolve);
    outgoing.on("error", reject);
    outgoing.end(init.body ?? undefined);
  });
}

/**
 * `body`, calling `finish` once it ends, fails or is cancelled; a failure after `signal`
 * aborted is reported as the signal's reason (a timeout, say).
 */
function closingWith(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
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
        controller.error(signal.aborted ? signal.reason : err);
      }
    },
    cancel: async (reason) => {
      finish();
      await reader.cancel(reason).catch(() => {});
    },
  }, { highWaterMark: 0 });
}

/** An address or host name without the brackets of an IPv6 literal. */
function unbracketed(host: string): string {
  return host.replace(/^\[(.*)\]$/, "$1");
}
