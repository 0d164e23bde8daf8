/**
 * Retention: a form with `retentionDays` keeps its records that long (counted from their
 * creation) and no longer. The sweep reads each such form's records in creation order (an
 * index written with every insert) up to the cutoff and deletes them exactly as the owner's
 * delete does: a `delete` record event each, and the release of their files.
 *
 * @module
 */
import type { FormsPort } from "../store/ports/forms.ts";
import { type RecordsPort, savedAtOf } from "../store/ports/records.ts";

/** The longest retention a form can have, in days (100 years). */
export const MAX_RETENTION_DAYS = 36_500;

const DAY_MS = 24 * 3600 * 1000;

/**
 * Deletes every record older than its form's retention at `nowMs`; returns how many.
 *
 * @example
 * ```ts
 * const deleted = await sweepRetention(store, Date.now());
 * ```
 */
export async function sweepRetention(
  store: { forms: FormsPort; records: RecordsPort },
  nowMs: number,
): Promise<number> {
  let deleted = 0;
  for (const form of await store.forms.list()) {
    if (!form.retentionDays) continue;
    const cutoff = savedAtOf(new Date(nowMs - form.retentionDays * DAY_MS));
    deleted += await store.records.deleteCreatedBefore(form.formId, cutoff);
  }
  return deleted;
}
