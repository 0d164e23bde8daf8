/**
 * `sealpost blob put`: upload a file for a form owner through the three-step client flow
 * (hash, upload slot, PUT to the pre-signed URL) and print its owned file reference, ready to
 * be the value of an image or attachment field. Built on the SDK's {@linkcode uploadFile}.
 *
 * @module
 */
import { flagOptions, JSON_AND_HELP, runCommand, UsageError } from "./args.ts";
import { basename } from "node:path";
import { MAX_FILE_BYTES, SealpostError, uploadFile } from "../sdk/mod.ts";
import { SealpostClient } from "./client.ts";
import { parseAgeRecipient } from "../crypto/age.ts";
import { mimeFromPath } from "./submit.ts";

const USAGE = `Usage: sealpost blob put <file> --user <id> [options]

Uploads a file for a form owner: hashes it, asks the instance for an upload slot
(POST /submissions/upload-slot) and PUTs the bytes to the pre-signed URL. Prints the file
reference {"url", "hash", "owned": true, "fileName", "mime", "sizeBytes"} (plus
"encryption": "age" with --encrypt), ready to be the value of an image or attachment field.

Arguments:
  file              The file to upload (1 byte to ${MAX_FILE_BYTES} bytes)

Options:
  --user ID         The form owner's user id (the manifest's recipient.userId)
  --mime TYPE       Media type, bound into the upload signature (default: from the file
                    extension, else application/octet-stream)
  --encrypt         Encrypt the file end to end first (forms with files "encrypted"): pad it,
                    encrypt it to --recipient in the age format and upload the ciphertext as
                    application/octet-stream; the reference adds "encryption": "age" and keeps
                    the real mime, name and size (docs/uploads.md)
  --recipient KEY   The form's recipient key for --encrypt: the manifest's
                    recipient.publicKey (base64) or its age recipient (age1…)
  --url URL         Instance to upload to (default: SEALPOST_URL, else the base URL in
                    <data dir>/credentials.json, else http://127.0.0.1:8080)
  --data DIR        Data dir whose credentials name the instance (default ./data)
  --json            Print the reference on one line (errors as {"error": {...}})
  -h, --help        Show this help

Exit status: 0 uploaded, 1 refused or failed, 2 usage error.
`;

const OPTIONS = {
  ...flagOptions("string", ["user", "mime", "recipient", "url", "data"]),
  encrypt: { type: "boolean" },
  ...JSON_AND_HELP,
} as const;

async function readUpload(path: string): Promise<Uint8Array> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    throw new UsageError(`Cannot read "${path}": ${(e as Error).message}`);
  }
  if (!info.isFile) throw new UsageError(`"${path}" is not a file`);
  if (info.size < 1 || info.size > MAX_FILE_BYTES) {
    throw new SealpostError(
      "invalid_file",
      `"${path}" has ${info.size} bytes; uploads take 1 to ${MAX_FILE_BYTES}`,
    );
  }
  // At most 50 MB, read once: the bytes hashed are exactly the bytes sent.
  return await Deno.readFile(path);
}

/** The base64 X25519 key of `--recipient` (base64 or age1…); "" without `--encrypt`. */
function recipientKey(encrypt: boolean, recipient: string | undefined): string {
  if (!encrypt) {
    if (recipient !== undefined) throw new UsageError("--recipient goes with --encrypt");
    return "";
  }
  if (!recipient) throw new UsageError("--encrypt needs --recipient KEY (the form's key)");
  if (recipient.startsWith("age1")) {
    try {
      return parseAgeRecipient(recipient).toBase64();
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  let key: Uint8Array | null = null;
  try {
    key = Uint8Array.fromBase64(recipient);
  } catch {
    // Reported below.
  }
  if (key?.length !== 32) {
    throw new UsageError(`--recipient "${recipient}" is neither age1… nor 32 bytes of base64`);
  }
  return recipient;
}

/**
 * Runs `sealpost blob` with the arguments after `blob`; resolves to the exit code.
 *
 * @example
 * ```ts
 * import { blobCommand } from "./blob.ts";
 * const code = await blobCommand(["put", "photo.png", "--user", "3f2a9c0d1e4b5a69", "--json"]);
 * ```
 */
export async function blobCommand(args: string[]): Promise<number> {
  return await runCommand(args, OPTIONS, USAGE, async ({ values: flags, positionals }, json) => {
    if (positionals[0] !== "put") {
      throw new UsageError(
        positionals.length === 0
          ? "Missing subcommand: put"
          : `Unknown subcommand "${positionals[0]}"; expected put`,
      );
    }
    if (positionals.length !== 2) {
      throw new UsageError(
        positionals.length === 1
          ? "Missing <file>"
          : `Expected one file, got ${positionals.slice(1).join(" ")}`,
      );
    }
    if (!flags.user) throw new UsageError("Missing --user ID (the form owner's user id)");
    if (flags.mime === "") throw new UsageError("--mime is empty");
    const publicKey = recipientKey(flags.encrypt === true, flags.recipient);
    const path = positionals[1];
    const bytes = await readUpload(path);
    const { baseUrl } = await SealpostClient.resolve({
      url: flags.url,
      data: flags.data,
      role: "owner",
    });
    // The upload needs only the relay URL and the owner's user id of a manifest.
    const ref = await uploadFile(
      { relayUrl: baseUrl, recipient: { userId: flags.user, publicKey } },
      { data: bytes, mime: flags.mime ?? mimeFromPath(path), fileName: basename(path) },
      { encrypt: flags.encrypt === true },
    );
    const { url, hash, owned, fileName, mime, sizeBytes, encryption } = ref;
    const printed = {
      url,
      hash,
      owned,
      fileName,
      mime,
      sizeBytes,
      ...(encryption ? { encryption } : {}),
    };
    console.log(JSON.stringify(printed, null, json ? undefined : 2));
  });
}
