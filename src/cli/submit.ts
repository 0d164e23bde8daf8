/**
 * `sealpost submit`: seal values (and files) to a form and submit them, from a script or a
 * terminal. A client of the relay built on the SDK; it never sees a private key.
 *
 * @module
 */
import { flagOptions, JSON_AND_HELP, readInput, runCommand, UsageError } from "./args.ts";

import { extname } from "node:path";
import { DEFAULT_RELAY_URL, fetchManifest, type FileInput, submitForm } from "../sdk/mod.ts";

const USAGE =
  `Usage: sealpost submit <formId|manifest-url> --values FILE --pin FINGERPRINT [options]

Seals the values to the form owner's key and submits them. The manifest is trusted only if
it is signed by the manifest key with the pinned fingerprint.

Arguments:
  formId|manifest-url    A form id (resolved as {relay}/forms/{formId}/manifest) or the
                         manifest's http(s) URL

Options:
  --values FILE          JSON object of field id to value ("-" reads standard input)
  --file FIELD=PATH      Upload PATH for the image/attachment field FIELD (repeatable);
                         the media type follows the file extension. Encrypted end to end
                         (age) first when the signed manifest says files "encrypted"
  --pin FINGERPRINT      SHA-256 (64 hex characters) of the form's manifest key
  --relay URL            Relay to resolve a form id against and to submit to
                         (default: SEALPOST_URL, else ${DEFAULT_RELAY_URL}, for resolving;
                         the manifest's relayUrl for submitting)
  --json                 Print {"submissionId", "editToken"} (errors as {"error": {...}})
  -h, --help             Show this help

Exit status: 0 submitted, 1 refused or failed, 2 usage error.
`;

const OPTIONS = {
  ...flagOptions("string", ["values", "pin", "relay"]),
  file: { type: "string", multiple: true },
  ...JSON_AND_HELP,
} as const;

const MIME: Record<string, string> = {
  ".avif": "image/avif",
  ".bmp": "image/bmp",
  ".csv": "text/csv",
  ".doc": "application/msword",
  ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  ".gif": "image/gif",
  ".heic": "image/heic",
  ".htm": "text/html",
  ".html": "text/html",
  ".jpeg": "image/jpeg",
  ".jpg": "image/jpeg",
  ".json": "application/json",
  ".md": "text/markdown",
  ".mp3": "audio/mpeg",
  ".mp4": "video/mp4",
  ".odt": "application/vnd.oasis.opendocument.text",
  ".pdf": "application/pdf",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".txt": "text/plain",
  ".webp": "image/webp",
  ".xls": "application/vnd.ms-excel",
  ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ".xml": "application/xml",
  ".zip": "application/zip",
};

/** Media type of a file name by its extension; `application/octet-stream` if unknown. */
export function mimeFromPath(path: string): string {
  return MIME[extname(path).toLowerCase()] ?? "application/octet-stream";
}

/**
 * The JSON object of field id to value in the file `path` (`-`: stdin), given as `--values`.
 *
 * @throws {UsageError} when it cannot be read or is not such an object.
 */
export async function readValues(path: string): Promise<Record<string, unknown>> {
  const text = await readInput(path, "--values");
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--values "${path}" is not JSON: ${(e as Error).message}`);
  }
  if (typeof values !== "object" || values === null || Array.isArray(values)) {
    throw new UsageError(`--values "${path}" must hold a JSON object of field id to value`);
  }
  return values as Record<string, unknown>;
}

async function readFiles(specs: string[]): Promise<Record<string, FileInput>> {
  const files: Record<string, FileInput> = {};
  for (const spec of specs) {
    const eq = spec.indexOf("=");
    if (eq < 1 || eq === spec.length - 1) {
      throw new UsageError(`--file "${spec}" must be FIELD=PATH`);
    }
    const field = spec.slice(0, eq);
    const path = spec.slice(eq + 1);
    if (field in files) throw new UsageError(`--file gives field "${field}" twice`);
    try {
      files[field] = {
        data: await Deno.readFile(path),
        mime: mimeFromPath(path),
        fileName: path.split(/[\\/]/).pop(),
      };
    } catch (e) {
      throw new UsageError(`Cannot read --file "${spec}": ${(e as Error).message}`);
    }
  }
  return files;
}

/**
 * Runs `sealpost submit` with the arguments after `submit`; resolves to the exit code.
 *
 * @example
 * ```ts
 * import { submitCommand } from "./submit.ts";
 * const code = await submitCommand([
 *   "contact", "--values", "values.json", "--file", "photo=me.png",
 *   "--pin", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "--json",
 * ]);
 * ```
 */
export async function submitCommand(args: string[]): Promise<number> {
  return await runCommand(args, OPTIONS, USAGE, async ({ values: flags, positionals }, json) => {
    if (positionals.length !== 1) {
      throw new UsageError(
        positionals.length === 0
          ? "Missing <formId|manifest-url>"
          : `Expected one form, got ${positionals.length}: ${positionals.join(" ")}`,
      );
    }
    if (!flags.values) throw new UsageError("Missing --values FILE");
    if (!flags.pin) throw new UsageError("Missing --pin FINGERPRINT (the manifest key's SHA-256)");
    const values = await readValues(flags.values);
    const files = await readFiles(flags.file ?? []);
    const manifest = await fetchManifest(positionals[0], {
      pin: flags.pin,
      relayUrl: flags.relay ?? Deno.env.get("SEALPOST_URL") ?? DEFAULT_RELAY_URL,
    });
    const receipt = await submitForm(manifest, values, { files, relayUrl: flags.relay });
    console.log(
      json
        ? JSON.stringify(receipt)
        : `submissionId: ${receipt.submissionId}\neditToken:    ${receipt.editToken} (keep it secret)`,
    );
  });
}
