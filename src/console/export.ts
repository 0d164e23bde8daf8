/**
 * Streamed exports of a form's records as CSV or JSONL: one page of record heads read per
 * pull of the response stream, so memory stays flat however many records there are.
 *
 * @module
 */
import type { FieldDef } from "../forms/fields.ts";
import { vaultKeys, type VaultRecordRow } from "../store/keys.ts";
import { csvHeader, csvRow } from "../vault/csv.ts";
import { recordOf } from "../vault/records.ts";

/** The export formats. */
export type ExportFormat = "csv" | "jsonl";

const PAGE = 500;

/**
 * A stream of a form's records (record-id order) in `format`, in the CSV format of
 * `src/vault/csv.ts` (as `sealpost records export` writes it) or JSON Lines.
 *
 * @example
 * ```ts
 * return new Response(exportStream(kv, form.formId, form.fields, "csv"));
 * ```
 */
export function exportStream(
  kv: Deno.Kv,
  formId: string,
  fields: FieldDef[],
  format: ExportFormat,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const fieldIds = fields.map((f) => f.id);
  let cursor: string | undefined;
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk = "";
      if (!started && format === "csv") chunk += csvHeader(fieldIds);
      started = true;
      const iter = kv.list<VaultRecordRow>({ prefix: vaultKeys.records(formId) }, {
        limit: PAGE,
        cursor,
      });
      let read = 0;
      for await (const entry of iter) {
        read++;
        if (entry.value.deletedAt) continue;
        const record = await recordOf(kv, entry.value);
        chunk += format === "jsonl" ? JSON.stringify(record) + "\n" : csvRow(record, fieldIds);
      }
      if (chunk) controller.enqueue(encoder.encode(chunk));
      if (read < PAGE) controller.close();
      else cursor = iter.cursor;
    },
  }, { highWaterMark: 0 });
}
