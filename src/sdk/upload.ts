/**
 * File upload through the slot flow: hash, `POST /submissions/upload-slot`, `PUT` the bytes
 * to the pre-signed URL with the declared Content-Type, and return the owned file reference.
 *
 * Encrypted files (the manifest's `files: "encrypted"`, or `encrypt: true`): the file is
 * padded and encrypted to the form's recipient key in the age format first, and the three
 * steps run on the ciphertext (its hash, `application/octet-stream`). The reference carries
 * the real `mime`, `fileName` and `sizeBytes` plus `encryption: "age"`; it travels sealed.
 *
 * @module
 */
import {
  type EncryptedFile,
  encryptFileHashed,
  MAX_ENCRYPTED_PLAINTEXT_BYTES,
} from "../crypto/age_encrypt.ts";
import { fromBase64, toHex } from "../crypto/encoding.ts";
import { sha256 } from "@noble/hashes/sha2.js";
import { MAX_FILE_BYTES, type OwnedFileRef } from "../forms/file_ref.ts";
import type { Manifest } from "../forms/manifest.ts";
import { RelayError, SealpostError } from "./errors.ts";
import { type HttpOptions, joinUrl, postJson, request } from "./http.ts";

/** A file to upload: bytes or a Blob/File, with optional metadata. */
export interface FileInput {
  data: Uint8Array | Blob;
  /** Media type (default: the Blob's type, else `application/octet-stream`). */
  mime?: string;
  /** File name (default: the File's name). */
  fileName?: string;
}

/** Options of {@linkcode uploadFile}. */
export interface UploadOptions extends HttpOptions {
  /** Relay to upload to (default: the manifest's `relayUrl`). */
  relayUrl?: string;
  /** The field the file is for, named in errors. */
  field?: string;
  /**
   * Encrypt the file to the manifest's recipient key (age) before uploading. Files of a form
   * whose signed manifest says `files: "encrypted"` are always encrypted, whatever this says.
   */
  encrypt?: boolean;
}

/** The upload media type of encrypted files: the real one travels in the sealed reference. */
export const ENCRYPTED_UPLOAD_MIME = "application/octet-stream";

/** Who files are uploaded for: a manifest's relay, recipient and file mode. */
export type UploadTarget = Pick<Manifest, "relayUrl" | "recipient" | "files">;

/** SHA-256 of `bytes` as 64 lowercase hex characters, natively where the runtime can. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (subtle) {
    try {
      return toHex(new Uint8Array(await subtle.digest("SHA-256", bytes as BufferSource)));
    } catch {
      // Not available here (e.g. a browser page outside a secure context): hash in JS.
    }
  }
  return toHex(sha256(bytes));
}

/** A file hashed and checked, with the owned reference it will have once uploaded. */
export interface PreparedFile {
  ref: OwnedFileRef;
  /** The bytes to upload: the file, or its age ciphertext when `ref.encryption` is set. */
  bytes: Uint8Array;
}

/**
 * Reads, checks and hashes a file (encrypting it first for encrypted forms) and builds its
 * owned reference, without any network, so values can be validated before uploading.
 *
 * @throws {SealpostError} `invalid_file` for an empty file or one over 50 MB (encrypted:
 * over 52,363,264 bytes, so that the ciphertext fits).
 */
export async function prepareFile(
  manifest: UploadTarget,
  input: FileInput,
  options: UploadOptions = {},
): Promise<PreparedFile> {
  const relayUrl = options.relayUrl ?? manifest.relayUrl;
  const data = input.data;
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(await data.arrayBuffer());
  const encrypt = options.encrypt === true || manifest.files === "encrypted";
  const max = encrypt ? MAX_ENCRYPTED_PLAINTEXT_BYTES : MAX_FILE_BYTES;
  if (bytes.length < 1 || bytes.length > max) {
    throw new SealpostError(
      "invalid_file",
      `${label(options.field)} has ${bytes.length} bytes; ` +
        `${encrypt ? "encrypted " : ""}uploads take 1 to ${max}`,
      { field: options.field },
    );
  }
  const mime = input.mime ?? (data instanceof Blob && data.type ? data.type : undefined) ??
    "application/octet-stream";
  const fileName = input.fileName ??
    (typeof File !== "undefined" && data instanceof File ? data.name : undefined);
  // Encrypted where the runtime allows it: hashed while encrypting (one pass, native).
  const sealed = encrypt ? encryptFor(manifest, bytes, options.field) : null;
  const upload = sealed?.bytes ?? bytes;
  const hash = sealed?.sha256 ?? await sha256Hex(upload);
  const ref = ownedFileRef(manifest, relayUrl, { hash, mime, sizeBytes: bytes.length, fileName });
  if (encrypt) ref.encryption = "age";
  return { ref, bytes: upload };
}

function encryptFor(
  manifest: UploadTarget,
  bytes: Uint8Array,
  field: string | undefined,
): EncryptedFile {
  let publicKey: Uint8Array;
  try {
    // Not Uint8Array.fromBase64: Node 20 lacks it.
    publicKey = fromBase64(manifest.recipient.publicKey);
  } catch {
    publicKey = new Uint8Array();
  }
  if (publicKey.length !== 32) {
    throw new SealpostError(
      "invalid_manifest",
      "Encrypting a file needs the recipient's X25519 public key (32 bytes, base64)",
      { field },
    );
  }
  return encryptFileHashed(bytes, publicKey);
}

/**
 * The owned file reference of uploaded bytes: `url` is the stable blob address
 * `{relayUrl}/submissions/blob/{recipientUserId}/{hash}`. For senders that hash and upload
 * on their own (the form page hashes large files without holding them in one buffer).
 *
 * @example
 * ```ts
 * import { ownedFileRef } from "./upload.ts";
 * const ref = ownedFileRef(manifest, manifest.relayUrl, { hash, mime: "image/png", sizeBytes: 42 });
 * ```
 */
export function ownedFileRef(
  manifest: Pick<Manifest, "recipient">,
  relayUrl: string,
  file: { hash: string; mime: string; sizeBytes: number; fileName?: string },
): OwnedFileRef {
  const userId = encodeURIComponent(manifest.recipient.userId);
  const ref: OwnedFileRef = {
    url: joinUrl(relayUrl, `/submissions/blob/${userId}/${file.hash}`),
    hash: file.hash,
    owned: true,
    mime: file.mime,
    sizeBytes: file.sizeBytes,
  };
  if (file.fileName !== undefined) ref.fileName = file.fileName;
  return ref;
}

/**
 * Uploads a prepared file: `POST /submissions/upload-slot`, then `PUT` to the returned URL
 * with `Content-Type` set to the declared mime and `x-amz-content-sha256` to the hash (which
 * an S3 store checks the bytes against). Both are safe to repeat (the store is
 * content-addressed) and are retried like submissions.
 *
 * @throws {RelayError} / {NetworkError} from the slot request or the upload.
 */
export async function sendFile(
  manifest: UploadTarget,
  file: PreparedFile,
  options: UploadOptions = {},
): Promise<void> {
  const relayUrl = options.relayUrl ?? manifest.relayUrl;
  const what = label(options.field).toLowerCase();
  const { hash } = file.ref;
  const mime = file.ref.encryption ? ENCRYPTED_UPLOAD_MIME : file.ref.mime!;
  const sizeBytes = file.bytes.length;
  const slot = await postJson(
    joinUrl(relayUrl, "/submissions/upload-slot"),
    { recipientUserId: manifest.recipient.userId, hash, mime, sizeBytes },
    `Requesting an upload slot for ${what}`,
    options,
  ) as Record<string, unknown> | null;
  if (typeof slot?.url !== "string") {
    throw new RelayError(200, "invalid_response", "The upload-slot answer lacks a url", {
      field: options.field,
    });
  }
  await request(
    new URL(slot.url, relayUrl.replace(/\/*$/, "/")).href,
    {
      method: "PUT",
      // An S3 store (blobs.backend = "s3") signs the declared hash and checks the bytes by it.
      headers: { "content-type": mime, "x-amz-content-sha256": hash },
      body: file.bytes as BodyInit,
    },
    `Uploading ${what}`,
    options,
    (response) => response.body?.cancel() ?? Promise.resolve(),
  );
}

/**
 * Uploads one file for the manifest's recipient and returns its owned file reference
 * `{url, hash, owned: true, fileName, mime, sizeBytes}`, ready to be a field's value. `url` is
 * the stable blob address `{relayUrl}/submissions/blob/{recipientUserId}/{hash}`, which the
 * owner exchanges for a fresh pre-signed read URL. With `encrypt: true` or a manifest saying
 * `files: "encrypted"`, the file is encrypted first and the reference adds `encryption: "age"`.
 *
 * @throws {SealpostError} `invalid_file` for an empty file or one over 50 MB.
 * @throws {RelayError} / {NetworkError} from the slot request or the upload.
 * @example
 * ```ts
 * import { uploadFile } from "./upload.ts";
 * const ref = await uploadFile(manifest, { data: bytes, mime: "application/pdf" });
 * const sealed = await uploadFile(manifest, { data: bytes }, { encrypt: true });
 * ```
 */
export async function uploadFile(
  manifest: UploadTarget,
  input: FileInput,
  options: UploadOptions = {},
): Promise<OwnedFileRef> {
  const file = await prepareFile(manifest, input, options);
  await sendFile(manifest, file, options);
  return file.ref;
}

function label(field: string | undefined): string {
  return field ? `File for "${field}"` : "File";
}
