/**
 * Long-polling of a recipient's queue (`GET /owner/queues/{fingerprint}?wait=…`): when a
 * listing finds nothing, wait until envelopes for the recipient are committed (the envelope
 * port's `onQueued`: a NOTIFY from any relay process on PostgreSQL, the intake's commit on
 * Deno KV), then list again; answer the empty page at the deadline.
 *
 * @module
 */
import type { EnvelopePort } from "../store/ports/envelopes.ts";

/**
 * Milliseconds between looks while waiting without news: covers a lost notification (a
 * dropped LISTEN connection) and leases of other holders that ended.
 */
const RECHECK_MS = 5000;

/**
 * Answers `list()` as soon as it finds items, or its last (empty) answer after `seconds`
 * (or once `signal` aborts). Lists once at once, then again after each announcement for
 * `fingerprint` (and every few seconds).
 *
 * @example
 * ```ts
 * const page = await waitForItems(envelopes, fp, 25, () => envelopes.listQueue(fp, 0, 100));
 * ```
 */
export async function waitForItems<P extends { items: readonly unknown[] }>(
  envelopes: EnvelopePort,
  fingerprint: string,
  seconds: number,
  list: () => Promise<P>,
  signal?: AbortSignal,
): Promise<P> {
  const deadline = Date.now() + seconds * 1000;
  let news = false;
  let wake = () => {};
  // Listening before the first look: a commit between the look and the wait is not missed.
  const stop = envelopes.onQueued((fp) => {
    if (fp !== fingerprint) return;
    news = true;
    wake();
  });
  const abort = () => wake();
  signal?.addEventListener("abort", abort);
  try {
    for (;;) {
      news = false;
      const page = await list();
      const left = deadline - Date.now();
      if (page.items.length > 0 || left <= 0 || signal?.aborted) return page;
      if (news) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, RECHECK_MS));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = () => {};
      // The client went away, or the server shuts down: the empty page, without another
      // (leasing) look that would hide envelopes behind an answer nobody reads.
      if (signal?.aborted) return page;
    }
  } finally {
    signal?.removeEventListener("abort", abort);
    stop();
  }
}
