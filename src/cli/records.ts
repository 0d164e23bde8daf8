/**
 * `sealpost records list|get|delete|export`: a form's records, over the `/vault` HTTP API of a
 * running instance, local or remote. `records export` streams every record page by page as
 * JSON Lines or CSV, the uploaded files too with `--with-files`.
 *
 * @module
 */
import { UsageError } from "./args.ts";
import { csvHeader, type CsvRecord, csvRow } from "../vault/csv.ts";
import type { SealpostClient } from "./client.ts";
import { saveRecordFiles } from "./export_files.ts";
import { need, ownerClient, parseLimit, print, runOwnerGroup } from "./owner.ts";
import { VAULT_OPTIONS, type VaultFlags } from "./vault_flags.ts";

const HELP = `Usage: sealpost records <command> [options]

  records list FORMID [--limit N]        The first N records (default 20)
  records get FORMID RECORDID            One record
  records delete FORMID RECORDID         Delete a record
  records export FORMID [--format jsonl|csv] [--out FILE] [--with-files DIR]
                          Every record, streamed page by page (JSON Lines by default);
                          progress on stderr when it is a terminal. --with-files: each
                          uploaded file too (decrypted), as DIR/<recordId>/<fieldId>/<name>
`;

/**
 * `records export`: writes every record of `formId` as JSON Lines or CSV to `--out` (0600) or
 * standard output, streamed page by page (memory stays flat), with progress on stderr when it
 * is a terminal; `--with-files DIR` saves each uploaded file too.
 */
async function exportRecords(
  client: SealpostClient,
  formId: string,
  flags: VaultFlags,
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

async function run(sub: string, args: string[], flags: VaultFlags): Promise<number> {
  const client = await ownerClient(flags);
  const f = (id: string | undefined) => `/vault/forms/${encodeURIComponent(need(id, "FORMID"))}`;
  switch (sub) {
    case "list": {
      const limit = parseLimit(flags.limit, 20, 1000);
      const { items } = await client.call<{ items: CsvRecord[] }>(
        "GET",
        `${f(args[0])}/records?limit=${limit}`,
      );
      print(
        flags,
        items,
        () =>
          items.map((r) => `${r._recordId}  ${r._savedAt}  ${JSON.stringify(r.values)}`).join("\n"),
      );
      return 0;
    }
    case "get": {
      const record = await client.call<CsvRecord>(
        "GET",
        `${f(args[0])}/records/${encodeURIComponent(need(args[1], "RECORDID"))}`,
      );
      print(flags, record, () => JSON.stringify(record, null, 2));
      return 0;
    }
    case "delete": {
      const id = need(args[1], "RECORDID");
      await client.call("DELETE", `${f(args[0])}/records/${encodeURIComponent(id)}`);
      print(flags, { deleted: id }, () => `Deleted ${id}`);
      return 0;
    }
    case "export":
      await exportRecords(client, need(args[0], "FORMID"), flags);
      return 0;
    default:
      throw new UsageError(`Unknown command "records ${sub}"`);
  }
}

/**
 * Runs `sealpost records ...` (`args` starts with `records`); resolves to the exit code.
 *
 * @example
 * ```ts
 * Deno.exit(await recordsCommand(["records", "export", "contact", "--format", "csv"]));
 * ```
 */
export function recordsCommand(args: string[]): Promise<number> {
  return runOwnerGroup(args, HELP, VAULT_OPTIONS, run);
}
