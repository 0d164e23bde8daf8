/**
 * Retention: a form with `retentionDays` keeps its records that long (counted from their
 * creation) and no longer. The sweep reads each such form's records in creation order (an
 * index written with every insert) up to the cutoff and deletes them exactly as the owner's
 * delete does: a `delete` record event each, and the release of their files.
 *
 * @module
 */
import { NotFound } from "../errors/index.ts";
import { type VaultFormRow, vaultKeys } from "../store/keys.ts";
import { deleteRecord, savedAtOf } from "./records.ts";

/** The longest retention a form can have, in days (100 years). */
export const MAX_RETENTION_DAYS = 36_500;

const DAY_MS = 24 * 3600 * 1000;

/**
 * Deletes every record older than its form's retention at `nowMs`; returns how many.
 *
 * @example
 * ```ts
 * const deleted = await sweepRetention(kv, Date.now());
 * ```
 */
export async function sweepRetention(kv: Deno.Kv, nowMs: number): Promise<number> {
  let deleted = 0;
  for await (const form of kv.list<VaultFormRow>({ prefix: vaultKeys.forms() })) {
    const days = form.value.retentionDays;
    if (!days) continue;
    const { formId } = form.value;
    const cutoff = savedAtOf(new Date(nowMs - days * DAY_MS));
    const expired = kv.list({
      start: vaultKeys.recordsByTime(formId),
      end: [...vaultKeys.recordsByTime(formId), cutoff],
    });
    for await (const entry of expired) {
      const recordId = String(entry.key.at(-1));
      try {
        await deleteRecord(kv, formId, recordId);
        deleted++;
      } catch (err) {
        // Deleted meanwhile (the owner was quicker): only the index entry is left.
        if (!(err instanceof NotFound)) throw err;
        await kv.atomic().check(entry).delete(entry.key).commit();
      }
    }
  }
  return deleted;
}
