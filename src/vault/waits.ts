/**
 * Promise helpers of the ingest loop (src/vault/ingest.ts): an abortable pause, and a promise
 * settled now but read later.
 *
 * @module
 */

/**
 * Resolves after `ms` (at once for none), or as soon as `signal` aborts.
 *
 * @example
 * ```ts
 * const stop = new AbortController();
 * await pause(2000, stop.signal); // two seconds, or less when stop.abort() is called
 * ```
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}

/**
 * Settles `promise` without leaving a rejection unhandled while it is not awaited yet; the
 * result is a function that returns its value or throws its error.
 *
 * @example
 * ```ts
 * const page = later(fetchPage()); // may fail before anyone awaits it
 * const items = (await page)(); // throws its error here, if any
 * ```
 */
export function later<T>(promise: Promise<T>): Promise<() => T> {
  return promise.then((value) => () => value, (err) => () => {
    throw err;
  });
}
