/**
 * The serving layer's limits (config `[server]`), and the connection cap derived from the
 * process's file-descriptor limit.
 *
 * @module
 */

/** The limits one listener enforces. */
export interface ConnectionLimits {
  /** From accept (or a kept-alive request's first byte) to the end of the request head. */
  headerTimeoutMs: number;
  /** How long a kept-alive connection may wait for its next request. */
  keepAliveTimeoutMs: number;
  /** The longest one read of the request body or one write of the response may stall. */
  bodyIdleTimeoutMs: number;
  /** Whole exchange of an API request, head to last response byte. */
  requestTimeoutMs: number;
  /**
   * Large transfers (exchanges the app holds to it, `ExchangeInfo.holdToThroughput`): the least
   * body bytes per second over each window.
   */
  minBytesPerSecond: number;
  /** The window of {@link minBytesPerSecond}. */
  throughputWindowMs: number;
  /** Largest request head (request line and headers). */
  maxHeadBytes: number;
  /** Open connections at once, for the whole listener. */
  maxConnections: number;
  /** Open connections at once from one address. */
  maxConnectionsPerAddress: number;
  /** Addresses exempt from the per-address cap (trusted reverse proxies). */
  isExempt(address: string): boolean;
}

/** File descriptors kept free for everything that is not a client connection. */
const RESERVED_FDS = 128;

/**
 * The soft limit on open files of this process (from `/proc/self/limits`), or `fallback`
 * where that cannot be read.
 *
 * @example
 * ```ts
 * openFileLimit(); // e.g. 1024
 * ```
 */
export function openFileLimit(
  read: () => string = () => Deno.readTextFileSync("/proc/self/limits"),
  fallback = 1024,
): number {
  try {
    const line = read().split("\n").find((l) => l.startsWith("Max open files"));
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
    if (soft === "unlimited") return Number.MAX_SAFE_INTEGER;
    const n = Number(soft);
    return Number.isInteger(n) && n > 0 ? n : fallback;
  } catch {
    return fallback;
  }
}

/**
 * The cap on open connections: `configured` (0 = automatic), never above what the
 * file-descriptor limit allows (half of what is left after a reserve, since an upload or a
 * download holds a file besides its socket).
 *
 * @example
 * ```ts
 * connectionCap(0, 1024); // 448
 * connectionCap(10_000, 1024); // 448 (clamped)
 * ```
 */
export function connectionCap(configured: number, fdLimit: number): number {
  const allowed = Math.max(16, Math.floor((fdLimit - RESERVED_FDS) / 2));
  return configured === 0 ? allowed : Math.min(configured, allowed);
}
