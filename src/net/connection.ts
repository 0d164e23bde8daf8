/**
 * One HTTP/1.1 connection: reads requests (keep-alive, pipelining), hands each to the fetch
 * handler and writes its response, under the timeouts of {@link ConnectionLimits}.
 *
 * What `Deno.serve` does for each connection, plus the timeouts it lacks (header, keep-alive
 * idle, body stall: denoland/deno#3515). Delete it with the accept loop when `Deno.serve` has
 * them (edge.ts lists what else it needs).
 *
 * @module
 */
import type { ConnectionLimits } from "./limits.ts";
import { ConnReader, HeadTooLarge } from "./reader.ts";
import { RequestBody } from "./request_body.ts";
import { BadRequest, parseRequestHead, type RequestHead } from "./request_head.ts";
import { plainError, writeResponse } from "./response_writer.ts";

/** What a handler learns of its exchange besides the request (`Deno.ServeHandlerInfo`, and more). */
export interface ExchangeInfo extends Deno.ServeHandlerInfo<Deno.NetAddr> {
  /**
   * Holds this exchange to the throughput rule (`minBytesPerSecond` of body bytes over each
   * window) instead of the request deadline: the app calls it once it has routed the request to
   * a large transfer (an upload, a download), so the regime follows the route actually served,
   * never the raw request target.
   */
  holdToThroughput(): void;
}

/** The application: a fetch handler, as `Deno.serve` calls it, with {@link ExchangeInfo}. */
export type FetchHandler = (
  request: Request,
  info: ExchangeInfo,
) => Response | Promise<Response>;

/**
 * What a connection is served over: an accepted `Deno.TcpConn`, or TLS on one
 * (src/net/tls_conn.ts), which says so with `secure`.
 */
export type ServedConn = Pick<Deno.TcpConn, "read" | "write" | "close" | "setNoDelay"> & {
  readonly remoteAddr: Deno.NetAddr;
  /** Requests on it are `https:` URLs. */
  readonly secure?: boolean;
};

/** A body left unread by the handler is read and dropped up to this size, else closed. */
const MAX_DISCARD = 64 * 1024;
/** Request bodies up to this size (by Content-Length) are read before the handler runs. */
const SMALL_BODY = 64 * 1024;
const CONTINUE = new TextEncoder().encode("HTTP/1.1 100 Continue\r\n\r\n");

/**
 * Serves one accepted connection until either side closes it or a limit cuts it.
 *
 * @example
 * ```ts
 * const connection = new HttpConnection(conn, limits, app.fetch, (c, idle) => {});
 * await connection.run();
 * ```
 */
export class HttpConnection {
  #closed = false;
  #draining = false;
  #idle = true;
  /** Body bytes moved: request body bytes read (not their framing) and response bytes written. */
  #bytes = 0;
  #pendingIo = 0;
  // Deadlines (epoch ms; Infinity = none), enforced by the listener's sweep (expire()).
  #readDeadline = Infinity;
  #writeDeadline = Infinity;
  #requestDeadline = Infinity;
  #meter: { windowEnd: number; mark: number } | null = null;
  /**
   * Aborts the request signal of the exchange in progress (on close and on shutdown); only
   * requests without a body have one.
   */
  #exchangeAbort: AbortController | null = null;

  constructor(
    private conn: ServedConn,
    private limits: ConnectionLimits,
    private handler: FetchHandler,
    private onIdle: (connection: HttpConnection, idle: boolean) => void,
  ) {}

  /** Whether the connection waits for a request (nothing in progress). */
  get idle(): boolean {
    return this.#idle;
  }

  /** Closes the connection now (whatever is in progress fails). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#exchangeAbort?.abort();
    try {
      this.conn.close();
    } catch { /* already closed */ }
  }

  /** Finishes the exchange in progress (answering with `Connection: close`), then closes. */
  drain(): void {
    this.#draining = true;
    this.#exchangeAbort?.abort(); // a long poll answers now
    if (this.#idle) this.close();
  }

  #setIdle(idle: boolean) {
    this.#idle = idle;
    this.onIdle(this, idle);
  }

  /**
   * Closes the connection when one of its deadlines has passed at `now`, or when a streaming
   * exchange moved too few bytes in the window that just ended while waiting on the client.
   * The listener calls it for every open connection a few times a second (one timer for all,
   * none per read or write).
   */
  expire(now: number): void {
    if (now >= this.#readDeadline || now >= this.#writeDeadline || now >= this.#requestDeadline) {
      this.close();
      return;
    }
    const meter = this.#meter;
    if (meter && now >= meter.windowEnd) {
      const windowMs = this.limits.throughputWindowMs;
      const least = this.limits.minBytesPerSecond * windowMs / 1000;
      if (this.#pendingIo > 0 && this.#bytes - meter.mark < least) this.close();
      meter.mark = this.#bytes;
      meter.windowEnd = now + windowMs;
    }
  }

  /** Awaits a read, closing the connection (at the next sweep) past `ms`. */
  async #read<T>(ms: number, io: Promise<T>): Promise<T> {
    this.#readDeadline = Date.now() + ms;
    this.#pendingIo++;
    try {
      return await io;
    } finally {
      this.#pendingIo--;
      this.#readDeadline = Infinity;
    }
  }

  /** Writes all of `bytes`, each write closing the connection past the body idle timeout. */
  async #write(bytes: Uint8Array): Promise<void> {
    this.#pendingIo++;
    try {
      let offset = 0;
      while (offset < bytes.byteLength) {
        this.#writeDeadline = Date.now() + this.limits.bodyIdleTimeoutMs;
        const n = await this.conn.write(bytes.subarray(offset));
        offset += n;
        this.#bytes += n;
      }
    } finally {
      this.#pendingIo--;
      this.#writeDeadline = Infinity;
    }
  }

  /** Serves requests until the connection ends; never throws. */
  async run(): Promise<void> {
    const reader = new ConnReader(this.conn);
    let first = true;
    try {
      while (!this.#closed && !this.#draining) {
        this.#setIdle(true);
        if (!first) {
          const more = await this.#read(this.limits.keepAliveTimeoutMs, reader.waitForData());
          if (!more) break;
        }
        first = false;
        let head: RequestHead | null;
        try {
          // A pipelined or already-arrived head needs no read (and no promise).
          const text = reader.takeHead(this.limits.maxHeadBytes) ??
            await this.#read(
              this.limits.headerTimeoutMs,
              reader.readHead(this.limits.maxHeadBytes),
            );
          if (text === null) break;
          this.#setIdle(false);
          head = parseRequestHead(text);
        } catch (err) {
          if (err instanceof HeadTooLarge) {
            await this.#reject(431, "headers_too_large", "The request head is too large");
          } else if (err instanceof BadRequest) {
            const code = err.status === 431 ? "headers_too_large" : "bad_request";
            await this.#reject(err.status, code, err.message);
          }
          break;
        }
        if (!await this.#exchange(reader, head)) break;
      }
    } catch {
      // The peer went away or a limit closed the connection: nothing left to answer.
    } finally {
      this.close();
      this.onIdle(this, false);
    }
  }

  async #reject(status: number, code: string, message: string) {
    await writeResponse(this.#sink, plainError(status, code, message), {
      headOnly: false,
      keepAlive: false,
    });
  }

  /** Where responses are written: through {@link #write} (timed, metered). */
  #sink = {
    write: async (bytes: Uint8Array) => {
      await this.#write(bytes);
      return bytes.byteLength;
    },
  };

  /** One request and its response; returns whether the connection may serve another. */
  async #exchange(reader: ConnReader, head: RequestHead): Promise<boolean> {
    // The host was checked by the parser; an HTTP/1.0 request may have none.
    const scheme = this.conn.secure ? "https" : "http";
    const target = head.target === "*" ? "/" : head.target;
    const url = `${scheme}://${head.host || "localhost"}${target}`;
    const body = new RequestBody(reader, head.framing, (n) => this.#bytes += n);
    let continued = !head.expectContinue;
    const idleMs = this.limits.bodyIdleTimeoutMs;
    const timedRead = async <T>(read: Promise<T>): Promise<T> => {
      if (!continued) {
        continued = true;
        await this.#write(CONTINUE);
      }
      return await this.#read(idleMs, read);
    };
    const { promise: completed, resolve: complete } = Promise.withResolvers<void>();
    // Every exchange starts under the request deadline; the app moves a large transfer to the
    // throughput rule once it has routed it (holdToThroughput).
    this.#requestDeadline = Date.now() + this.limits.requestTimeoutMs;
    const holdToThroughput = () => {
      if (this.#meter || this.#closed) return;
      this.#requestDeadline = Infinity;
      this.#meter = { windowEnd: Date.now() + this.limits.throughputWindowMs, mark: this.#bytes };
    };
    try {
      let requestBody: BodyInit | null = null;
      if (head.method !== "GET" && head.method !== "HEAD" && !body.done) {
        const { framing } = head;
        // A small body is read before the handler runs (one buffer, no stream); a large or
        // chunked one streams as the handler reads it.
        if (framing.kind === "length" && framing.length <= SMALL_BODY) {
          try {
            requestBody = await readAll(framing.length, (into) => timedRead(body.readInto(into)));
          } catch {
            return false; // the client went away or stalled: nobody to answer
          }
        } else requestBody = body.stream(timedRead);
      }
      // A request without a body (a long poll is one) gets a signal, ended when the connection
      // closes, the server shuts down or the client goes away: the connection is watched while
      // the handler runs (bytes of a pipelined next request stay buffered), so a long poll stops
      // waiting and leases nothing for a client that left. A request with a body is answered as
      // it comes: no signal to make (a dependent signal costs as much as the rest of the Request).
      let signal: AbortSignal | undefined;
      if (requestBody === null && body.done) {
        const exchangeAbort = this.#exchangeAbort = new AbortController();
        signal = exchangeAbort.signal;
        reader.waitForData().then((more) => {
          if (!more) exchangeAbort.abort();
        }, () => exchangeAbort.abort());
      }
      let request: Request;
      try {
        request = new Request(url, {
          method: head.method,
          headers: head.headers,
          body: requestBody,
          signal,
        });
      } catch {
        await this.#reject(400, "bad_request", "Malformed request");
        return false;
      }
      let response = await this.handler(request, {
        remoteAddr: this.conn.remoteAddr,
        completed,
        holdToThroughput,
      });
      if (body.failed) {
        // The body's framing broke under the handler: whatever it answered, the answer is 400
        // and the connection closes (no byte after the error is ever read as a request).
        await response.body?.cancel().catch(() => {});
        if (!body.malformed) return false;
        response = plainError(400, "bad_request", "The request body is malformed");
      }
      const keepAlive = head.keepAlive && !this.#draining && !body.failed;
      const open = await writeResponse(this.#sink, response, {
        headOnly: head.method === "HEAD",
        keepAlive,
        http10: head.minor === 0,
      });
      if (!open) return false;
      if (body.done) return true;
      // An unread body: the client that waits for 100 Continue never sends it.
      if (!continued) return false;
      return await this.#read(idleMs, body.discard(MAX_DISCARD));
    } finally {
      this.#exchangeAbort = null;
      this.#requestDeadline = Infinity;
      this.#meter = null;
      complete();
    }
  }
}

/** Reads a body of `length` bytes through `readInto` into one buffer. */
async function readAll(
  length: number,
  readInto: (into: Uint8Array) => Promise<number | null>,
): Promise<Uint8Array<ArrayBuffer>> {
  const out = new Uint8Array(length);
  let offset = 0;
  while (offset < length) {
    const n = await readInto(out.subarray(offset));
    if (n === null) break;
    offset += n;
  }
  return out;
}
