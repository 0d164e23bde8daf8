/**
 * Records as CSV (RFC 4180), one format for every export: `sealpost records export --format
 * csv` and the console's export. Columns: `_recordId`, `_formId`, `_savedAt`, then one per
 * field id in form order.
 *
 * @module
 */

/** The metadata columns before the fields' columns. */
export const CSV_META_COLUMNS = ["_recordId", "_formId", "_savedAt"] as const;

/** What a CSV row needs of a record. */
export interface CsvRecord {
  _recordId: string;
  _formId: string;
  _savedAt: string;
  values: Record<string, unknown>;
}

/**
 * One CSV cell of a value: lists joined by ", ", geo as "lat,lng", files by URL.
 *
 * @example
 * ```ts
 * csvValue({ lat: 51.5, lng: -0.12 }); // "51.5,-0.12"
 * ```
 */
export function csvValue(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.join(", ");
  if (typeof value === "object") {
    const v = value as Record<string, unknown>;
    if (typeof v.lat === "number" && typeof v.lng === "number") return `${v.lat},${v.lng}`;
    if (typeof v.url === "string") return v.url;
    if (typeof v.dataUri === "string") return v.dataUri;
    return JSON.stringify(value);
  }
  return String(value);
}

/**
 * Quotes a CSV cell when it needs it (RFC 4180).
 *
 * @example
 * ```ts
 * csvCell('say "hi"'); // '"say ""hi"""'
 * ```
 */
export function csvCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The header line (with its CRLF) of a form whose fields have `fieldIds`. */
export function csvHeader(fieldIds: string[]): string {
  return [...CSV_META_COLUMNS, ...fieldIds].map(csvCell).join(",") + "\r\n";
}

/**
 * One record's line (with its CRLF). Metadata columns come from the record, field columns from
 * its values: a field whose id is also a record member (say "values") never exports that member.
 */
export function csvRow(record: CsvRecord, fieldIds: string[]): string {
  const meta = CSV_META_COLUMNS.map((c) => csvCell(record[c]));
  return [...meta, ...fieldIds.map((id) => csvCell(csvValue(record.values[id])))].join(",") +
    "\r\n";
}
