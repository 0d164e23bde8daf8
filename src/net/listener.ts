/**
 * The accept loop: HTTP/1.1 on `Deno.listen`, with a cap on open connections (total and per
 * address, connections in any state counted) and a loop that survives running out of file
 * descriptors. When every slot is taken, a newcomer displaces a connection of the address
 * holding the most (its oldest idle one first) unless it comes from that address itself: a few
 * addresses cannot hold every slot.
 *
 * `Deno.serve` stops listening for good when `accept` fails with "Too many open files"
 * (measured on Deno 2.9.6) and offers no header or idle timeouts; this loop backs off,
 * sheds the oldest idle connection and accepts again. Delete it when `Deno.serve` survives
 * EMFILE, has those timeouts and can cap connections per address (see edge.ts).
 *
 * @module
 */
import { type FetchHandler, HttpConnection, type ServedConn } from "./connection.ts";
import { clientKey } from "../ip/address.ts";
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
  // Open connections, each with its address's key (an IPv6 client's /64).
  const open = new Map<HttpConnection, string>();
  // Idle connections, oldest first (re-inserted each time one becomes idle).
  const idle = new Set<HttpConnection>();
  // Each address's connections, oldest first.
  const perAddress = new Map<string, Set<HttpConnection>>();
  const running = new Set<Promise<void>>();
  let stopping = false;

  const onIdle = (connection: HttpConnection, isIdle: boolean) => {
    idle.delete(connection);
    if (isIdle) idle.add(connection);
  };
  /** Closes `connection` and stops counting it at once (its run ends a moment later). */
  const evict = (connection: HttpConnection) => {
    const key = open.get(connection)!;
    open.delete(connection);
    idle.delete(connection);
    const fromThere = perAddress.get(key);
    fromThere?.delete(connection);
    if (fromThere?.size === 0) perAddress.delete(key);
    connection.close();
  };
  const shedOldestIdle = (): boolean => {
    const [oldest] = idle;
    if (!oldest) return false;
    evict(oldest);
    return true;
  };

  /**
   * Makes room for a connection from `address` on a full server, fairly: a newcomer from an
   * address lighter than the heaviest displaces the heaviest address's oldest idle connection,
   * else its oldest; a newcomer from the heaviest address (or one as heavy) only displaces an
   * idle connection of its own address. False when nothing was shed (the newcomer is refused).
   */
  const shedForNewcomer = (address: string): boolean => {
    let heaviest: Set<HttpConnection> | undefined;
    for (const connections of perAddress.values()) {
      if (!heaviest || connections.size > heaviest.size) heaviest = connections;
    }
    const own = perAddress.get(address);
    const from = heaviest && heaviest.size > (own?.size ?? 0) + 1 ? heaviest : own;
    if (!from) return false;
    let victim: HttpConnection | undefined;
    for (const connection of from) {
      if (connection.idle) {
        victim = connection;
        break;
      }
    }
    if (!victim && from !== own) [victim] = from;
    if (!victim) return false;
    evict(victim);
    return true;
  };

  const admit = (conn: ServedConn) => {
    // Counted per client: an IPv6 client by its /64.
    const peer = conn.remoteAddr.hostname;
    const address = clientKey(peer);
    const fromAddress = perAddress.get(address)?.size ?? 0;
    const refuse = (fromAddress >= limits.maxConnectionsPerAddress && !limits.isExempt(peer)) ||
      (open.size >= limits.maxConnections && !shedForNewcomer(address));
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
    open.set(connection, address);
    const fromHere = perAddress.get(address) ?? new Set<HttpConnection>();
    fromHere.add(connection);
    perAddress.set(address, fromHere);
    const done = connection.run().finally(() => {
      if (open.has(connection)) evict(connection);
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
    for (const connection of open.keys()) connection.expire(now);
  }, SWEEP_MS);

  let closing: Promise<void> | null = null;
  const shutdown = () =>
    closing ??= (async () => {
      stopping = true;
      try {
        listener.close();
      } catch { /* closed */ }
      await accepting;
      for (const connection of open.keys()) connection.drain();
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
