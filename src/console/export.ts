/**
 * Streamed exports of a form's records as CSV or JSONL: one page of record heads read per
 * pull of the response stream, so memory stays flat however many records there are.
 *
 * @module
 */
import type { FieldDef } from "../forms/fields.ts";
import type { RecordsPort } from "../store/ports/records.ts";
import { csvHeader, csvRow } from "../vault/csv.ts";

/** The export formats. */
export type ExportFormat = "csv" | "jsonl";

const PAGE = 500;

/**
 * A stream of a form's records (record-id order) in `format`, in the CSV format of
 * `src/vault/csv.ts` (as `sealpost records export` writes it) or JSON Lines.
 *
 * @example
 * ```ts
 * return new Response(exportStream(vault.store.records, form.formId, form.fields, "csv"));
 * ```
 */
export function exportStream(
  records: RecordsPort,
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
      const page = await records.list(formId, cursor, PAGE);
      for (const record of page.items) {
        chunk += format === "jsonl" ? JSON.stringify(record) + "\n" : csvRow(record, fieldIds);
      }
      if (chunk) controller.enqueue(encoder.encode(chunk));
      if (page.nextCursor === null) controller.close();
      else cursor = page.nextCursor;
    },
  }, { highWaterMark: 0 });
}
