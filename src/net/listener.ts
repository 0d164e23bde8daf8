/**
 * The accept loop: HTTP/1.1 on `Deno.listen`, with a cap on open connections (total and per
 * address) and a loop that survives running out of file descriptors.
 *
 * `Deno.serve` stops listening for good when `accept` fails with "Too many open files"
 * (measured on Deno 2.9.6) and offers no header or idle timeouts; this loop backs off,
 * sheds the oldest idle connection and accepts again.
 *
 * @module
 */
import { type FetchHandler, HttpConnection, type ServedConn } from "./connection.ts";
import { clientKey } from "./ip.ts";
import type { ConnectionLimits } from "./limits.ts";

/** A listening server. */
export interface HttpServer {
  /** The address it listens on. */
  addr: Deno.NetAddr;
  /** Stops accepting, closes idle connections, lets the exchanges in progress finish. */
  shutdown(): Promise<void>;
  /** Resolves when the server has stopped. */
  finished: Promise<void>;
  /** Open connections now (for tests and health). */
  readonly connections: number;
}

/** What the accept loop accepts from: `Deno.listen`'s listener, or TLS on one (tls_listener.ts). */
export interface ConnListener {
  readonly addr: Deno.NetAddr;
  accept(): Promise<ServedConn>;
  close(): void;
}

/** Longest pause of the accept loop after a failed accept. */
const MAX_BACKOFF_MS = 1000;

/** How often every connection's deadlines are checked (the timeouts' granularity). */
const SWEEP_MS = 250;

/**
 * Listens on `hostname:port` (or takes an open listener) and serves `handler` under `limits`.
 * Throws as `Deno.listen` does (address in use, permission denied).
 *
 * @example
 * ```ts
 * const server = serveHttp({ hostname: "127.0.0.1", port: 0 }, limits, app.fetch);
 * await server.shutdown();
 * ```
 */
export function serveHttp(
  options: { hostname: string; port: number } | ConnListener,
  limits: ConnectionLimits,
  handler: FetchHandler,
  log: (message: string) => void = (message) => console.error(message),
): HttpServer {
  const listener: ConnListener = "accept" in options
    ? options
    : Deno.listen({ ...options, transport: "tcp" });
  const open = new Set<HttpConnection>();
  // Idle connections, oldest first (re-inserted each time one becomes idle).
  const idle = new Set<HttpConnection>();
  const perAddress = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let stopping = false;

  const onIdle = (connection: HttpConnection, isIdle: boolean) => {
    idle.delete(connection);
    if (isIdle) idle.add(connection);
  };
  const shedOldestIdle = (): boolean => {
    const [oldest] = idle;
    if (!oldest) return false;
    idle.delete(oldest);
    oldest.close();
    return true;
  };

  const admit = (conn: ServedConn) => {
    // Counted per client: an IPv6 client by its /64.
    const peer = conn.remoteAddr.hostname;
    const address = clientKey(peer);
    const fromAddress = perAddress.get(address) ?? 0;
    const refuse = (fromAddress >= limits.maxConnectionsPerAddress && !limits.isExempt(peer)) ||
      (open.size >= limits.maxConnections && !shedOldestIdle());
    if (refuse || stopping) {
      try {
        conn.close();
      } catch { /* gone */ }
      return;
    }
    try {
      conn.setNoDelay(true);
    } catch { /* closed already */ }
    const connection = new HttpConnection(conn, limits, handler, onIdle);
    open.add(connection);
    perAddress.set(address, fromAddress + 1);
    const done = connection.run().finally(() => {
      open.delete(connection);
      idle.delete(connection);
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left === 0) perAddress.delete(address);
      else perAddress.set(address, left);
      running.delete(done);
    });
    running.add(done);
  };

  const acceptLoop = async () => {
    let backoff = 10;
    let lastLog = 0;
    for (;;) {
      let conn: ServedConn;
      try {
        conn = await listener.accept();
      } catch (err) {
        if (stopping || err instanceof Deno.errors.BadResource) return;
        // Out of file descriptors (EMFILE/ENFILE) or a transient network error: shed an idle
        // connection, wait, and accept again.
        if (Date.now() - lastLog > 10_000) {
          lastLog = Date.now();
          log(JSON.stringify({
            level: "warn",
            msg: "accept failed; retrying",
            error: err instanceof Error ? err.message : String(err),
            connections: open.size,
          }));
        }
        shedOldestIdle();
        await new Promise((resolve) => setTimeout(resolve, backoff));
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
        continue;
      }
      backoff = 10;
      admit(conn);
    }
  };
  const accepting = acceptLoop();
  // One timer for every connection's deadlines, instead of one per read and write.
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const connection of open) connection.expire(now);
  }, SWEEP_MS);

  let closing: Promise<void> | null = null;
  const shutdown = () =>
    closing ??= (async () => {
      stopping = true;
      try {
        listener.close();
      } catch { /* closed */ }
      await accepting;
      for (const connection of open) connection.drain();
      while (running.size > 0) await Promise.allSettled([...running]);
      clearInterval(sweeper);
    })();
  return {
    addr: listener.addr,
    shutdown,
    finished: accepting.then(() => closing ?? undefined),
    get connections() {
      return open.size;
    },
  };
}
