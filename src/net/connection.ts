/**
 * One HTTP/1.1 connection: reads requests (keep-alive, pipelining), hands each to the fetch
 * handler and writes its response, under the timeouts of {@link ConnectionLimits}.
 *
 * @module
 */
import type { ConnectionLimits } from "./limits.ts";
import { ConnReader, HeadTooLarge } from "./reader.ts";
import { RequestBody } from "./request_body.ts";
import { BadRequest, parseRequestHead, type RequestHead } from "./request_head.ts";
import { plainError, writeAll, writeResponse } from "./response_writer.ts";

/** The application: a fetch handler, as `Deno.serve` calls it. */
export type FetchHandler = (
  request: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Response | Promise<Response>;

/** A body left unread by the handler is read and dropped up to this size, else closed. */
const MAX_DISCARD = 64 * 1024;
const CONTINUE = new TextEncoder().encode("HTTP/1.1 100 Continue\r\n\r\n");
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

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
  #bytes = 0;
  #pendingIo = 0;
  readonly address: string;

  constructor(
    private conn: Deno.TcpConn,
    private limits: ConnectionLimits,
    private handler: FetchHandler,
    private onIdle: (connection: HttpConnection, idle: boolean) => void,
  ) {
    this.address = conn.remoteAddr.hostname;
  }

  /** Whether the connection waits for a request (nothing in progress). */
  get idle(): boolean {
    return this.#idle;
  }

  /** Closes the connection now (whatever is in progress fails). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.conn.close();
    } catch { /* already closed */ }
  }

  /** Finishes the exchange in progress (answering with `Connection: close`), then closes. */
  drain(): void {
    this.#draining = true;
    if (this.#idle) this.close();
  }

  #setIdle(idle: boolean) {
    this.#idle = idle;
    this.onIdle(this, idle);
  }

  /** Runs `io`, closing the connection when it takes longer than `ms`. */
  async #timed<T>(ms: number, io: Promise<T>): Promise<T> {
    const timer = setTimeout(() => this.close(), ms);
    this.#pendingIo++;
    try {
      return await io;
    } finally {
      this.#pendingIo--;
      clearTimeout(timer);
    }
  }

  /** Serves requests until the connection ends; never throws. */
  async run(): Promise<void> {
    const reader = new ConnReader(this.conn, (n) => this.#bytes += n);
    let first = true;
    try {
      while (!this.#closed && !this.#draining) {
        this.#setIdle(true);
        if (!first) {
          const more = await this.#timed(this.limits.keepAliveTimeoutMs, reader.waitForData());
          if (!more) break;
        }
        first = false;
        let head: RequestHead | null;
        try {
          const bytes = await this.#timed(
            this.limits.headerTimeoutMs,
            reader.readHead(this.limits.maxHeadBytes),
          );
          if (!bytes) break;
          this.#setIdle(false);
          head = parseRequestHead(bytes);
        } catch (err) {
          if (err instanceof HeadTooLarge) {
            await this.#reject(431, "headers_too_large", "The request head is too large");
          } else if (err instanceof BadRequest) {
            await this.#reject(err.status, "bad_request", err.message);
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
    await this.#timed(
      this.limits.bodyIdleTimeoutMs,
      writeResponse(this.conn, plainError(status, code, message), {
        headOnly: false,
        keepAlive: false,
      }),
    );
  }

  /** One request and its response; returns whether the connection may serve another. */
  async #exchange(reader: ConnReader, head: RequestHead): Promise<boolean> {
    const host = head.headers.get("host");
    const path = head.target.split("?")[0];
    let url: URL;
    try {
      url = new URL(
        head.target === "*" ? "/" : head.target,
        `http://${host && HOST.test(host) ? host : "localhost"}`,
      );
    } catch {
      await this.#reject(400, "bad_request", "Malformed request target");
      return false;
    }
    const body = new RequestBody(reader, head.framing);
    let continued = !head.expectContinue;
    const idleMs = this.limits.bodyIdleTimeoutMs;
    const stream = body.stream((read) => {
      if (!continued) {
        continued = true;
        return this.#timed(idleMs, writeAll(this.conn, CONTINUE)).then(() =>
          this.#timed(idleMs, read)
        );
      }
      return this.#timed(idleMs, read);
    });
    const bodyless = head.method === "GET" || head.method === "HEAD" || body.done;
    const { promise: completed, resolve: complete } = Promise.withResolvers<void>();
    const stop = this.limits.isStreamingRoute(head.method, path) ? this.#meter() : this.#deadline();
    try {
      const request = new Request(url, {
        method: head.method,
        headers: head.headers,
        body: bodyless ? null : stream,
      });
      const response = await this.handler(request, {
        remoteAddr: this.conn.remoteAddr,
        completed,
      });
      const keepAlive = head.keepAlive && !this.#draining;
      await writeResponse(
        {
          write: async (bytes) => {
            const n = await this.#timed(idleMs, this.conn.write(bytes));
            this.#bytes += n;
            return n;
          },
        },
        response,
        { headOnly: head.method === "HEAD", keepAlive },
      );
      if (!keepAlive) return false;
      if (body.done) return true;
      // An unread body: the client that waits for 100 Continue never sends it.
      if (!continued) return false;
      return await this.#timed(idleMs, body.discard(MAX_DISCARD));
    } finally {
      stop();
      complete();
    }
  }

  /** The whole-request deadline of API routes: closes the connection when it passes. */
  #deadline(): () => void {
    const timer = setTimeout(() => this.close(), this.limits.requestTimeoutMs);
    return () => clearTimeout(timer);
  }

  /**
   * The throughput rule of streaming routes: at each window's end, while the connection waits
   * on the client, fewer than the minimum bytes in that window closes it.
   */
  #meter(): () => void {
    const windowMs = this.limits.throughputWindowMs;
    const least = this.limits.minBytesPerSecond * windowMs / 1000;
    let mark = this.#bytes;
    const timer = setInterval(() => {
      if (this.#pendingIo > 0 && this.#bytes - mark < least) this.close();
      mark = this.#bytes;
    }, windowMs);
    return () => clearInterval(timer);
  }
}
