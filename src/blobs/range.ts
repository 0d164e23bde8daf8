/**
 * The `Range` request header, single range only (RFC 9110 §14).
 *
 * @module
 */
import type { ByteRange } from "./store.ts";

/** What a `Range` header asks of a representation of `size` bytes. */
export type RangeRequest =
  | { kind: "full" }
  | { kind: "partial"; range: ByteRange }
  | { kind: "unsatisfiable" };

const SINGLE = /^bytes=(\d{0,16})-(\d{0,16})$/;

/**
 * Resolves a `Range` header against a representation of `size` bytes. No header, a
 * malformed one, or several ranges (which the server may ignore) ask for the full
 * representation; a range that starts past the end cannot be satisfied.
 *
 * @example
 * ```ts
 * parseRange("bytes=0-99", 1000); // { kind: "partial", range: { start: 0, end: 99 } }
 * parseRange("bytes=-100", 1000); // { kind: "partial", range: { start: 900, end: 999 } }
 * parseRange("bytes=2000-", 1000); // { kind: "unsatisfiable" }
 * ```
 */
export function parseRange(header: string | null | undefined, size: number): RangeRequest {
  const match = header ? SINGLE.exec(header.replaceAll(" ", "")) : null;
  if (!match || (match[1] === "" && match[2] === "")) return { kind: "full" };
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(match[1]);
  const last = match[2] === "" ? Infinity : Number(match[2]);
  if (last < start) return { kind: "full" };
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "partial", range: { start, end: Math.min(last, size - 1) } };
}
