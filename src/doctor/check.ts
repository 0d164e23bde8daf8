/**
 * One line of `sealpost doctor`: a named check, its verdict and the plain words behind it.
 *
 * @module
 */

/** A check's verdict: `fail` makes doctor exit non-zero; `warn` and `skip` do not. */
export type CheckStatus = "ok" | "warn" | "fail" | "skip";

/** The result of one check. */
export interface CheckResult {
  /** Stable name, snake_case (`base_url_reachable`, `tls_certificate`, …). */
  name: string;
  status: CheckStatus;
  /** What was found, in plain words; for a failure, what to do. */
  detail: string;
}

/**
 * A result of check `name`.
 *
 * @example
 * ```ts
 * check("clock", "ok", "0.2 s from the server's clock");
 * ```
 */
export function check(name: string, status: CheckStatus, detail: string): CheckResult {
  return { name, status, detail };
}

/** Milliseconds a network check may take before it counts as unreachable. */
export const NETWORK_TIMEOUT_MS = 10_000;

/** The message of an error, one line. */
export function reason(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0];
}
