/**
 * File references: the value of an image or attachment field. Three shapes, per the
 * specification:
 *
 * - owned URL `{url, hash, owned: true, ...}`: bytes uploaded through the slot flow;
 * - external URL `{url, owned: false}` (or `owned` left out): hosted elsewhere;
 * - inline data URI `{dataUri: "data:<mime>;base64,<data>"}` (legacy, tiny files).
 *
 * `fileName`, `mime` and `sizeBytes` are optional metadata on every shape. Unknown members are
 * kept, so a newer sender's metadata survives an older reader. An owned reference may add
 * `encryption: "age"` (Sealpost's end-to-end encrypted files; then `sizeBytes` is required).
 *
 * @module
 */
import { z } from "zod";
import { base64DecodedLength, isBase64 } from "../crypto/encoding.ts";
import { isHttpUrl, MAX_FILE_BYTES, nestsDeeperThan } from "./_common.ts";

export { MAX_FILE_BYTES };

/** Metadata every file reference may carry. */
export interface FileMeta {
  fileName?: string;
  mime?: string;
  sizeBytes?: number;
}

/** Bytes uploaded through the slot flow, addressed by their SHA-256. */
export interface OwnedFileRef extends FileMeta {
  url: string;
  /** SHA-256 of the bytes, 64 lowercase hex characters. */
  hash: string;
  owned: true;
  /**
   * Set when the sender encrypted the file to the form's key (forms with `files:
   * "encrypted"`): the stored bytes are an age file of the padded plaintext, and `hash` is
   * theirs; `mime`, `fileName` and `sizeBytes` describe the plaintext. See src/crypto/age.ts.
   */
  encryption?: "age";
}

/** A file hosted elsewhere; the service stores no bytes. */
export interface ExternalFileRef extends FileMeta {
  url: string;
  owned?: false;
}

/** Legacy inline file: `data:<mime>;base64,<data>`. */
export interface InlineFileRef extends FileMeta {
  dataUri: string;
}

/** Any of the three file reference shapes. */
export type FileRef = OwnedFileRef | ExternalFileRef | InlineFileRef;

const TOKEN = "[A-Za-z0-9!#$&^_.+-]+";
const MIME = new RegExp(`^${TOKEN}/${TOKEN}(?:\\s*;\\s*${TOKEN}=(?:${TOKEN}|"[^"]*"))*$`);
const DATA_URI = new RegExp(`^data:(${TOKEN}/${TOKEN});base64,(.+)$`, "s");

/** Whether `value` is a media type such as `image/png` or `text/plain; charset=utf-8`. */
export function isMime(value: string): boolean {
  return value.length <= 255 && MIME.test(value);
}

/** The lowercase `type/subtype` of a media type, without parameters. */
export function mimeEssence(mime: string): string {
  return mime.split(";", 1)[0].trim().toLowerCase();
}

/** The media type and byte length of a valid `data:<mime>;base64,<data>` URI, else null. */
export function parseDataUri(value: string): { mime: string; sizeBytes: number } | null {
  const m = DATA_URI.exec(value);
  if (!m || !isBase64(m[2])) return null;
  return { mime: m[1], sizeBytes: base64DecodedLength(m[2]) };
}

/** Deepest nesting of arrays and objects a file reference may hold (its unknown members). */
export const MAX_FILE_REF_DEPTH = 8;

const FileRefObject = z.looseObject({
  url: z.string().max(4096).refine(isHttpUrl, "Must be an absolute http: or https: URL")
    .optional(),
  hash: z.string().regex(/^[0-9a-f]{64}$/, "Must be a SHA-256 as 64 lowercase hex characters")
    .optional(),
  owned: z.boolean().optional(),
  dataUri: z.string().optional(),
  fileName: z.string().min(1).max(255).optional(),
  mime: z.string().refine(isMime, "Must be a media type such as image/png").optional(),
  sizeBytes: z.number().int().min(0).optional(),
  encryption: z.literal("age", { error: 'Must be "age" (the only file encryption)' }).optional(),
});

/**
 * Validates a file reference in any of its three shapes, with a message naming what is wrong.
 *
 * @example
 * ```ts
 * import { FileRefSchema } from "./file_ref.ts";
 * FileRefSchema.parse({ url: "https://example.com/cat.png", owned: false });
 * ```
 */
export const FileRefSchema: z.ZodType<FileRef> = FileRefObject.superRefine((ref, ctx) => {
  const issue = (message: string, path: string) =>
    ctx.addIssue({ code: "custom", message, path: [path] });
  if (nestsDeeperThan(ref, MAX_FILE_REF_DEPTH)) {
    ctx.addIssue({
      code: "custom",
      message: `A file reference nests more than ${MAX_FILE_REF_DEPTH} levels deep`,
    });
    return;
  }
  if (ref.url === undefined && ref.dataUri === undefined) {
    ctx.addIssue({ code: "custom", message: "A file reference needs a url or a dataUri" });
    return;
  }
  if (ref.url !== undefined && ref.dataUri !== undefined) {
    issue("Give either url or dataUri, not both", "dataUri");
  }
  if (ref.owned === true) {
    if (ref.url === undefined) issue("An owned file reference needs a url", "url");
    if (ref.hash === undefined) issue("An owned file reference needs the SHA-256 hash", "hash");
    if (ref.sizeBytes !== undefined && (ref.sizeBytes < 1 || ref.sizeBytes > MAX_FILE_BYTES)) {
      issue(`sizeBytes ${ref.sizeBytes} is outside 1 to ${MAX_FILE_BYTES}`, "sizeBytes");
    }
    if (ref.encryption !== undefined && ref.sizeBytes === undefined) {
      issue("An encrypted file reference needs the plaintext's sizeBytes", "sizeBytes");
    }
  } else {
    if (ref.hash !== undefined) {
      issue("Only an owned file reference (owned: true) carries a hash", "hash");
    }
    if (ref.encryption !== undefined) {
      issue("Only an owned file reference (owned: true) is encrypted", "encryption");
    }
  }
  if (ref.dataUri !== undefined) {
    if (ref.owned !== undefined) issue("An inline data URI is neither owned nor external", "owned");
    const parsed = parseDataUri(ref.dataUri);
    if (!parsed) {
      issue("Must be data:<mime>;base64,<standard base64 data>", "dataUri");
    } else {
      if (ref.mime !== undefined && mimeEssence(ref.mime) !== mimeEssence(parsed.mime)) {
        issue(`mime "${ref.mime}" differs from the data URI's "${parsed.mime}"`, "mime");
      }
      if (ref.sizeBytes !== undefined && ref.sizeBytes !== parsed.sizeBytes) {
        issue(
          `sizeBytes ${ref.sizeBytes} differs from the data URI's ${parsed.sizeBytes} bytes`,
          "sizeBytes",
        );
      }
    }
  }
}) as unknown as z.ZodType<FileRef>;

/** The media type of a file reference: its `mime`, else the data URI's, else undefined. */
export function fileRefMime(ref: FileRef): string | undefined {
  if (ref.mime !== undefined) return ref.mime;
  return "dataUri" in ref ? parseDataUri(ref.dataUri)?.mime : undefined;
}

/** The byte size of a file reference: its `sizeBytes`, else the data URI's, else undefined. */
export function fileRefSize(ref: FileRef): number | undefined {
  if (ref.sizeBytes !== undefined) return ref.sizeBytes;
  return "dataUri" in ref ? parseDataUri(ref.dataUri)?.sizeBytes : undefined;
}
