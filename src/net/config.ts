/**
 * The serving layer's limits, from the configuration's `[server]` keys.
 *
 * @module
 */
import type { Config } from "../config/index.ts";
import { AddressRanges } from "../ip/address.ts";
import { connectionCap, type ConnectionLimits, openFileLimit } from "./limits.ts";

/** Largest request head (request line and headers), in bytes. */
export const MAX_HEAD_BYTES = 64 * 1024;

/** The window of the upload and download throughput rule. */
export const THROUGHPUT_WINDOW_MS = 10_000;

/**
 * The limits `config` asks for; the connection cap never exceeds what this process's
 * open-file limit allows.
 *
 * @example
 * ```ts
 * const limits = connectionLimits(config);
 * limits.maxConnections; // e.g. 448 under `ulimit -n 1024`
 * ```
 */
export function connectionLimits(config: Config, fdLimit = openFileLimit()): ConnectionLimits {
  const s = config.server;
  const proxies = new AddressRanges(s.trusted_proxies);
  return {
    headerTimeoutMs: s.header_timeout_seconds * 1000,
    keepAliveTimeoutMs: s.keepalive_timeout_seconds * 1000,
    bodyIdleTimeoutMs: s.body_idle_timeout_seconds * 1000,
    requestTimeoutMs: s.request_timeout_seconds * 1000,
    minBytesPerSecond: s.min_transfer_bytes_per_second,
    throughputWindowMs: THROUGHPUT_WINDOW_MS,
    maxHeadBytes: MAX_HEAD_BYTES,
    maxConnections: connectionCap(s.max_connections, fdLimit),
    maxConnectionsPerAddress: s.max_connections_per_address,
    isExempt: (address) => proxies.has(address),
  };
}
