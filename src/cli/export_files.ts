/**
 * `records export --with-files DIR`: beside the records, the files they hold, decrypted.
 * Each owned file of an image or attachment field is written to
 * `DIR/<recordId>/<fieldId>/<fileName>` through the vault's owner route
 * `GET /vault/forms/{formId}/records/{recordId}/files/{fieldId}` (the vault decrypts files of
 * encrypted forms; plain ones come from the relay), streamed to disk, never held whole.
 *
 * @module
 */
import { join } from "node:path";
import type { SealpostClient } from "./client.ts";

/** A file name safe to write inside one folder: no path, no control characters. */
export function safeFileName(name: unknown): string {
  const base = typeof name === "string" ? name.split(/[\\/]/).pop()! : "";
  // deno-lint-ignore no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, "_").trim();
  return clean === "" || clean === "." || clean === ".." ? "file" : clean.slice(0, 200);
}

/**
 * Writes the owned files of `record` (its fields of kind image or attachment) under `dir`;
 * resolves to how many were written.
 *
 * @example
 * ```ts
 * await saveRecordFiles(client, "contact", ["photo"], record, "./files");
 * ```
 */
export async function saveRecordFiles(
  client: SealpostClient,
  formId: string,
  fileFields: string[],
  record: { _recordId: string; values: Record<string, unknown> },
  dir: string,
): Promise<number> {
  let written = 0;
  for (const fieldId of fileFields) {
    const ref = record.values[fieldId] as { owned?: unknown; fileName?: unknown } | null;
    if (!ref || typeof ref !== "object" || ref.owned !== true) continue;
    const path = [formId, "records", record._recordId, "files", fieldId]
      .map(encodeURIComponent).join("/");
    const { url } = await client.call<{ url: string }>("GET", `/vault/forms/${path}`);
    const response = await fetch(url);
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw new Error(
        `File "${fieldId}" of record ${record._recordId}: HTTP ${response.status}`,
      );
    }
    const folder = join(dir, safeFileName(record._recordId), safeFileName(fieldId));
    await Deno.mkdir(folder, { recursive: true, mode: 0o700 });
    const file = await Deno.open(join(folder, safeFileName(ref.fileName)), {
      write: true,
      create: true,
      truncate: true,
      mode: 0o600,
    });
    await response.body.pipeTo(file.writable);
    written++;
  }
  return written;
}
