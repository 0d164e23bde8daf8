/**
 * How a record's values show in the console, by field kind. Everything is text (JSX escapes
 * it); images show inline only for raster types through fresh pre-signed URLs, never SVG or
 * HTML; other files are download links.
 *
 * @module
 */
import type { FieldDef } from "../forms/fields.ts";
import type { OwnedFileRef } from "../forms/file_ref.ts";
import type { Vault } from "../vault/index.ts";

/** Fresh read URLs of owned files, by hash. */
export type FileUrls = Map<string, string>;

/** Lifetime of the read URLs a page shows, in seconds. */
const URL_LIFETIME_SECONDS = 600;

/** Raster image types shown inline (never SVG, which can carry script). */
const INLINE_IMAGE = /^image\/(png|jpeg|gif|webp|avif|bmp)$/;

type Ref = {
  url?: string;
  hash?: string;
  owned?: boolean;
  dataUri?: string;
  fileName?: string;
  mime?: string;
  sizeBytes?: number;
  encryption?: string;
};

function refsOf(value: unknown): Ref[] {
  if (value && typeof value === "object" && !Array.isArray(value)) return [value as Ref];
  return [];
}

/**
 * Fresh read URLs for the owned files among `records`' values (image and attachment
 * fields): asked of the relay through the vault's link, or for encrypted files the vault's
 * signed link that serves them decrypted.
 *
 * @example
 * ```ts
 * const urls = await fileUrls(vault, form.formId, form.fields, [record.values]);
 * ```
 */
export async function fileUrls(
  vault: Vault,
  formId: string,
  fields: FieldDef[],
  records: Record<string, unknown>[],
): Promise<FileUrls> {
  const out: FileUrls = new Map();
  const files = fields.filter((f) => f.kind === "image" || f.kind === "attachment");
  for (const values of records) {
    for (const f of files) {
      for (const ref of refsOf(values[f.id])) {
        if (!ref.owned || typeof ref.hash !== "string" || out.has(ref.hash)) continue;
        // Encrypted files: the vault's own link, which decrypts them (src/vault/files.ts).
        const url = await vault.files.url(formId, ref as OwnedFileRef, URL_LIFETIME_SECONDS)
          .catch(() => null);
        if (url) out.set(ref.hash, url);
      }
    }
  }
  return out;
}

function mimeOf(ref: Ref): string {
  const fromData = ref.dataUri ? /^data:([^;,]+)/.exec(ref.dataUri)?.[1] : undefined;
  return (ref.mime ?? fromData ?? "").split(";")[0].trim().toLowerCase();
}

function FileValue({ ref, kind, urls }: { ref: Ref; kind: string; urls: FileUrls }) {
  const name = ref.fileName ?? "file";
  const mime = mimeOf(ref);
  const href = ref.owned && ref.hash ? urls.get(ref.hash) : ref.url;
  if (kind === "image" && INLINE_IMAGE.test(mime)) {
    const src = ref.owned ? href : ref.dataUri;
    if (src) return <img class="inline" src={src} alt={`Image ${name}`} />;
  }
  if (ref.dataUri) return <span>{`${name} (inline data, ${mime || "unknown type"})`}</span>;
  if (!href) return <span>{`${name} (file not available)`}</span>;
  return (
    <a href={href} download={name} rel="noopener noreferrer">
      {`Download ${name}`}
    </a>
  );
}

/** Plain text of a non-file value. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (Array.isArray(value)) return value.map(String).join(", ");
  if (typeof value === "object") {
    const v = value as Record<string, unknown>;
    if (typeof v.lat === "number" && typeof v.lng === "number") return `${v.lat}, ${v.lng}`;
    return JSON.stringify(value);
  }
  return String(value);
}

/** One value of a record, shown for its field's kind. */
export function Value({ field, value, urls }: { field: FieldDef; value: unknown; urls: FileUrls }) {
  if ((field.kind === "image" || field.kind === "attachment") && value) {
    return (
      <>
        {refsOf(value).map((ref) => <FileValue ref={ref} kind={field.kind} urls={urls} />)}
      </>
    );
  }
  return <>{valueText(value)}</>;
}
