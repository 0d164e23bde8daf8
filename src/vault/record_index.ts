/**
 * A form's records by receipt time, its live record count and its records per day, kept in
 * the same atomic operation as each insert and delete. They let the console show the newest
 * records of a form of any size, its total and its chart without reading every record.
 *
 * Records saved before the index existed are indexed by the store's migration 2
 * (src/store/migrations.ts).
 *
 * @module
 */
import { vaultKeys, type VaultRecordRow } from "../store/keys.ts";
import type { KvWrite } from "../store/write.ts";

/** Subtracts one from a `Deno.KvU64` through `sum` (which wraps modulo 2^64). */
const MINUS_ONE = 0xffff_ffff_ffff_ffffn;

/** Adds an inserted record (its head `row`) to the index, in `op`. */
export function indexInsert(op: KvWrite, row: VaultRecordRow): void {
  op.set(vaultKeys.recordByTime(row.formId, row.createdAt, row.recordId), true);
  op.sum(vaultKeys.recordCount(row.formId), 1n);
  op.sum(vaultKeys.recordDay(row.formId, row.createdAt.slice(0, 10)), 1n);
}

/** Takes a deleted record (its head `row`) out of the index, in `op`. */
export function indexDelete(op: KvWrite, row: VaultRecordRow): void {
  op.delete(vaultKeys.recordByTime(row.formId, row.createdAt, row.recordId));
  op.sum(vaultKeys.recordCount(row.formId), MINUS_ONE);
  op.sum(vaultKeys.recordDay(row.formId, row.createdAt.slice(0, 10)), MINUS_ONE);
}

/** A form's live record count. */
export async function recordCount(kv: Deno.Kv, formId: string): Promise<number> {
  const value = (await kv.get<Deno.KvU64>(vaultKeys.recordCount(formId))).value;
  return value ? Number(value.value) : 0;
}

/** Records per UTC day from `from` to `to` (inclusive, `YYYY-MM-DD`), days with none left out. */
export async function recordsPerDay(
  kv: Deno.Kv,
  formId: string,
  from: string,
  to: string,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const iter = kv.list<Deno.KvU64>({
    start: vaultKeys.recordDay(formId, from),
    end: vaultKeys.recordDay(formId, `${to}\uffff`),
  });
  for await (const entry of iter) out.set(String(entry.key[3]), Number(entry.value.value));
  return out;
}

/**
 * A page of record ids by receipt time (newest first unless `oldest`), received from `from`
 * to `to` (inclusive days, empty for no bound), after `cursor`.
 */
export async function recordIdsByTime(
  kv: Deno.Kv,
  formId: string,
  options: { from: string; to: string; oldest: boolean; cursor?: string; limit: number },
): Promise<{ ids: string[]; nextCursor: string | null }> {
  const prefix = vaultKeys.recordsByTime(formId);
  const selector: Deno.KvListSelector = options.from || options.to
    ? {
      start: options.from ? [...prefix, options.from] : [...prefix, ""],
      end: options.to ? [...prefix, `${options.to}\uffff`] : [...prefix, "\uffff"],
    }
    : { prefix };
  const iter = kv.list(selector, {
    reverse: !options.oldest,
    limit: options.limit,
    cursor: options.cursor,
  });
  const ids: string[] = [];
  for await (const entry of iter) ids.push(String(entry.key[4]));
  return { ids, nextCursor: ids.length === options.limit ? iter.cursor : null };
}
