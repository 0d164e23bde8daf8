/**
 * Pure rules of a delivery attempt's outcome: classification of the receiver's response,
 * Retry-After, the surfaced response snippet, and the wait before the next attempt.
 *
 * @module
 */

/** What an attempt's response means for its delivery. */
export type Outcome = "delivered" | "transient" | "permanent";

/**
 * Classifies a response status per the delivery outcome table: 2xx delivered, 3xx counted
 * as delivered (redirects are not followed), 408, 429 and 5xx transient, any other 4xx
 * permanent. (A network error or a timeout, which has no status, is transient.)
 *
 * @example
 * ```ts
 * classifyStatus(204); // "delivered"
 * classifyStatus(429); // "transient"
 * classifyStatus(410); // "permanent"
 * ```
 */
export function classifyStatus(status: number): Outcome {
  if (status >= 200 && status < 400) return "delivered";
  if (status === 408 || status === 429 || status >= 500) return "transient";
  if (status >= 400) return "permanent";
  return "transient";
}

/**
 * The wait a `Retry-After` value asks for, in seconds: delta-seconds, or an HTTP-date
 * (a date in the past is 0). Null when absent or malformed.
 *
 * @example
 * ```ts
 * parseRetryAfter("120", Date.now()); // 120
 * parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", Date.parse("2015-10-21T07:27:00Z")); // 60
 * ```
 */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (!/^[A-Za-z]{3}/.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, (at - now) / 1000);
}

/** Longest snippet surfaced to the owner, in characters. */
export const SNIPPET_CHARS = 200;

/**
 * The response snippet surfaced to the owner: newlines (and the spaces around them)
 * collapsed to one space, at most 200 characters.
 *
 * @example
 * ```ts
 * snippetOf("ok\r\n  thanks\n"); // "ok thanks"
 * ```
 */
export function snippetOf(text: string): string {
  const collapsed = text.replace(/[ \t]*[\r\n]+[ \t\r\n]*/g, " ").trim();
  const chars = Array.from(collapsed);
  return chars.length <= SNIPPET_CHARS ? collapsed : chars.slice(0, SNIPPET_CHARS).join("");
}

/** The schedule settings the wait depends on. */
export interface BackoffSettings {
  retry_schedule_seconds: number[];
  jitter_ratio: number;
  retry_after_max_seconds: number;
}

/** Deno KV refuses a queue delay over 30 days. */
const MAX_DELAY_SECONDS = 30 * 24 * 3600;

/**
 * Seconds to wait before the attempt at `round` of the schedule: the scheduled wait plus
 * up to `jitter_ratio` of it at random, raised to a Retry-After (capped at
 * `retry_after_max_seconds`). Null when the schedule has no such round (retries are over).
 *
 * @example
 * ```ts
 * nextWaitSeconds(settings, 1, null, () => 0); // 5 with the default schedule
 * nextWaitSeconds(settings, 1, 60, () => 0); // 60
 * ```
 */
export function nextWaitSeconds(
  settings: BackoffSettings,
  round: number,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number | null {
  const scheduled = settings.retry_schedule_seconds[round];
  if (scheduled === undefined) return null;
  let wait = scheduled * (1 + random() * settings.jitter_ratio);
  if (retryAfterSeconds !== null) {
    wait = Math.max(wait, Math.min(retryAfterSeconds, settings.retry_after_max_seconds));
  }
  return Math.min(wait, MAX_DELAY_SECONDS);
}
