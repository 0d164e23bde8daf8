/**
 * When an ACME certificate is renewed: 30 days before it expires, checked at least twice a day,
 * and after a failure again with a doubling wait (5 minutes to 12 hours, which keeps well under
 * Let's Encrypt's limit of 5 failed validations per name and hour).
 *
 * @module
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Renew this long before the certificate expires. */
export const RENEW_BEFORE_MS = 30 * DAY;
/** The longest wait between two checks (a timer cannot wait past 24.8 days anyway). */
export const CHECK_EVERY_MS = 12 * HOUR;
/** The wait after a first failure; it doubles with each next one. */
export const FIRST_RETRY_MS = 5 * MINUTE;
/** The longest wait after failures. */
export const MAX_RETRY_MS = 12 * HOUR;

/**
 * Whether a certificate ending at `notAfter` is due for renewal at `now` (epoch ms).
 *
 * @example
 * ```ts
 * renewalDue(new Date(Date.now() + 10 * 86_400_000), Date.now()); // true
 * ```
 */
export function renewalDue(notAfter: Date, now: number): boolean {
  return notAfter.getTime() - now <= RENEW_BEFORE_MS;
}

/**
 * Milliseconds until the next check of a certificate ending at `notAfter`: 0 when due (or when
 * there is none), never more than {@link CHECK_EVERY_MS}.
 *
 * @example
 * ```ts
 * nextCheckIn(new Date(Date.now() + 90 * 86_400_000), Date.now()); // 43_200_000 (12 h)
 * ```
 */
export function nextCheckIn(notAfter: Date | null, now: number): number {
  if (!notAfter) return 0;
  return Math.min(Math.max(0, notAfter.getTime() - RENEW_BEFORE_MS - now), CHECK_EVERY_MS);
}

/**
 * The wait after `failures` failures in a row (1 or more).
 *
 * @example
 * ```ts
 * retryIn(1); // 300_000 (5 min)
 * retryIn(3); // 1_200_000 (20 min)
 * ```
 */
export function retryIn(failures: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1), MAX_RETRY_MS);
}
