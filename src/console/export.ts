/**
 * Streamed exports of a form's records as CSV or JSONL: one page of record heads read per
 * pull of the response stream, so memory stays flat however many records there are.
 *
 * @module
 */
import { csvCell, csvValue } from "../cli/vault.ts";
import type { FieldDef } from "../forms/fields.ts";
import { vaultKeys, type VaultRecordRow } from "../store/keys.ts";
import { recordOf } from "../vault/records.ts";

/** The export formats. */
export type ExportFormat = "csv" | "jsonl";

const META_COLUMNS = ["_recordId", "_formId", "_savedAt", "_createdAt"] as const;
const PAGE = 500;

/**
 * A stream of a form's records (record-id order) in `format`. CSV has one column per field
 * after the metadata columns; a value's cell is as `sealpost records export` writes it.
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
  const columns = [...META_COLUMNS, ...fields.map((f) => f.id)];
  let cursor: string | undefined;
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk = "";
      if (!started && format === "csv") chunk += columns.map(csvCell).join(",") + "\r\n";
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
        if (format === "jsonl") chunk += JSON.stringify(record) + "\n";
        else {
          const meta = record as unknown as Record<string, unknown>;
          chunk += columns.map((c, i) =>
            csvCell(csvValue(i < META_COLUMNS.length ? meta[c] : record.values[c]))
          ).join(",") + "\r\n";
        }
      }
      if (chunk) controller.enqueue(encoder.encode(chunk));
      if (read < PAGE) controller.close();
      else cursor = iter.cursor;
    },
  }, { highWaterMark: 0 });
}
