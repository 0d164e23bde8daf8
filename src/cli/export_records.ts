/**
 * `sealpost records export FORMID [--format jsonl|csv] [--out FILE] [--with-files DIR]`:
 * every record of a form, streamed page by page (memory stays flat), with progress on stderr
 * when it is a terminal.
 *
 * @module
 */
import { UsageError } from "./args.ts";
import { csvHeader, type CsvRecord, csvRow } from "../vault/csv.ts";
import type { SealpostClient } from "./client.ts";
import { saveRecordFiles } from "./export_files.ts";

/** The flags of `records export`. */
export interface ExportFlags {
  format?: string;
  out?: string;
  "with-files"?: string;
}

/**
 * Writes every record of `formId` as JSON Lines or CSV to `--out` (0600) or standard output;
 * `--with-files DIR` saves each uploaded file too.
 *
 * @example
 * ```ts
 * await exportRecords(client, "contact", { format: "csv", out: "contact.csv" });
 * ```
 */
export async function exportRecords(
  client: SealpostClient,
  formId: string,
  flags: ExportFlags,
): Promise<void> {
  const format = flags.format ?? "jsonl";
  if (format !== "jsonl" && format !== "csv") {
    throw new UsageError(`Unknown --format "${format}": use jsonl or csv`);
  }
  const form = await client.call<{ fields: { id: string; kind: string }[] }>(
    "GET",
    `/vault/forms/${encodeURIComponent(formId)}`,
  );
  const file = flags.out
    ? await Deno.open(flags.out, { write: true, create: true, truncate: true, mode: 0o600 })
    : null;
  const writer = (file?.writable ?? Deno.stdout.writable).getWriter();
  const encoder = new TextEncoder();
  const progress = Deno.stderr.isTerminal();
  const fieldIds = form.fields.map((f) => f.id);
  const files = form.fields.filter((f) => f.kind === "image" || f.kind === "attachment");
  if (format === "csv") await writer.write(encoder.encode(csvHeader(fieldIds)));
  let cursor: string | null = null;
  let count = 0;
  try {
    do {
      const query: string = `?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const page: { items: CsvRecord[]; nextCursor: string | null } = await client.call(
        "GET",
        `/vault/forms/${encodeURIComponent(formId)}/records${query}`,
      );
      let chunk = "";
      for (const record of page.items) {
        chunk += format === "jsonl" ? JSON.stringify(record) + "\n" : csvRow(record, fieldIds);
        const dir = flags["with-files"];
        if (dir) await saveRecordFiles(client, formId, files.map((f) => f.id), record, dir);
      }
      await writer.write(encoder.encode(chunk));
      count += page.items.length;
      if (progress) {
        const bar = "#".repeat(Math.min(30, Math.floor(Math.log2(count + 1) * 2)));
        Deno.stderr.writeSync(encoder.encode(`\r[${bar.padEnd(30)}] ${count} records`));
      }
      cursor = page.nextCursor;
    } while (cursor);
  } finally {
    await writer.close().catch(() => {});
  }
  if (progress) Deno.stderr.writeSync(encoder.encode(`\nExported ${count} records\n`));
}
