/// <reference lib="dom" />
/**
 * One image or attachment field of the form page: hashes the chosen file as soon as it is
 * picked (natively through WebCrypto, else in 4 MiB chunks with a pause between them, so the
 * page never freezes), shows an image preview, and uploads it with the specification's three
 * steps (hash, `POST /submissions/upload-slot`, `PUT` with the declared Content-Type) showing
 * a progress bar, with a retry button when an upload fails.
 *
 * Forms whose signed manifest says `files: "encrypted"`: the picked file is padded and
 * encrypted to the form's key (age) in the page first; the three steps run on the ciphertext
 * (`application/octet-stream`) and the reference keeps the real name, type and size.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { toHex } from "../../crypto/encoding.ts";
import type { FieldDef } from "../../forms/fields.ts";
import type { OwnedFileRef } from "../../forms/file_ref.ts";
import type { Manifest } from "../../forms/manifest.ts";
import { RelayError } from "../../sdk/errors.ts";
import { joinUrl, postJson } from "../../sdk/http.ts";
import { ENCRYPTED_UPLOAD_MIME, ownedFileRef } from "../../sdk/upload.ts";
import { encryptFile } from "../../crypto/age_encrypt.ts";

const CHUNK = 4 * 1024 * 1024;

/**
 * SHA-256 of a file as 64 lowercase hex characters, reporting progress from 0 to 1. Uses
 * WebCrypto in a secure context (it runs off the main thread); elsewhere hashes 4 MiB at a
 * time and yields to the event loop between chunks.
 */
export async function hashFile(file: Blob, onProgress: (done: number) => void): Promise<string> {
  const subtle = globalThis.isSecureContext ? globalThis.crypto?.subtle : undefined;
  if (subtle) {
    const digest = await subtle.digest("SHA-256", await file.arrayBuffer());
    onProgress(1);
    return toHex(new Uint8Array(digest));
  }
  const hash = sha256.create();
  for (let at = 0; at < file.size; at += CHUNK) {
    hash.update(new Uint8Array(await file.slice(at, at + CHUNK).arrayBuffer()));
    onProgress(Math.min(1, (at + CHUNK) / file.size));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  onProgress(1);
  return toHex(hash.digest());
}

/**
 * PUTs `file` to a pre-signed URL with `Content-Type: mime` and `x-amz-content-sha256: hash`,
 * reporting upload progress.
 */
export function putFile(
  url: string,
  file: Blob,
  mime: string,
  hash: string,
  onProgress: (done: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    xhr.setRequestHeader("content-type", mime);
    // An S3 store signs the declared hash into the URL and checks the bytes against it.
    xhr.setRequestHeader("x-amz-content-sha256", hash);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      let message = `The upload failed with HTTP ${xhr.status}`;
      let code = `http_${xhr.status}`;
      try {
        const error = JSON.parse(xhr.responseText)?.error;
        if (typeof error?.message === "string") message = error.message;
        if (typeof error?.code === "string") code = error.code;
      } catch { /* not JSON: keep the status */ }
      reject(new RelayError(xhr.status, code, message));
    };
    xhr.onerror = () => reject(new Error("The upload failed: the network connection was lost"));
    xhr.send(file);
  });
}

/** What the page needs to know about a form to upload to it. */
export type UploadTarget = Pick<Manifest, "recipient" | "files"> & { relayUrl: string };

/** The state of one file field of the page. */
export class FilePicker {
  #file: File | null = null;
  /** What is uploaded: the file, or its age ciphertext for encrypted forms. */
  #upload: Blob | null = null;
  #ref: OwnedFileRef | null = null;
  #hashing: Promise<void> | null = null;
  #uploaded = false;
  #previewUrl = "";

  /** Binds the controls of `field` (ids `{prefix}{field.id}…`). */
  constructor(
    readonly field: FieldDef,
    private form: HTMLFormElement,
    private target: UploadTarget,
    private prefix = "sp-",
  ) {
    this.#el<HTMLInputElement>("").addEventListener("change", () => this.#picked());
    this.#el<HTMLButtonElement>("-upload button").addEventListener("click", () => {
      this.upload().catch(() => {/* shown in the field's status */});
    });
  }

  #el<T extends HTMLElement>(suffix: string): T {
    const [id, rest] = suffix.split(" ");
    const el = this.form.querySelector(
      `#${CSS.escape(this.prefix + this.field.id + id)}` +
        (rest ? ` ${rest}` : ""),
    ) as T | null;
    if (!el) throw new Error(`Missing control ${this.prefix}${this.field.id}${suffix}`);
    return el;
  }

  #status(text: string, progress: number | null, retry = false) {
    this.#el("-upload").hidden = false;
    this.#el("-status").textContent = text;
    const bar = this.#el<HTMLProgressElement>("-progress");
    bar.hidden = progress === null;
    if (progress !== null) bar.value = Math.round(progress * 100);
    this.#el<HTMLButtonElement>("-upload button").hidden = !retry;
  }

  #picked() {
    const file = this.#el<HTMLInputElement>("").files?.[0] ?? null;
    this.#file = file;
    this.#ref = null;
    this.#upload = null;
    this.#uploaded = false;
    if (this.#previewUrl) URL.revokeObjectURL(this.#previewUrl);
    this.#previewUrl = "";
    if (this.field.kind === "image") {
      const img = this.#el<HTMLImageElement>("-preview");
      img.hidden = !file?.type.startsWith("image/");
      if (!img.hidden) {
        this.#previewUrl = URL.createObjectURL(file!);
        img.src = this.#previewUrl;
        img.alt = `Preview of ${file!.name}`;
      }
    }
    if (!file) {
      this.#el("-upload").hidden = true;
      this.#hashing = null;
      return;
    }
    this.#hashing = this.#hash(file);
  }

  async #hash(file: File) {
    const encrypted = this.target.files === "encrypted";
    let upload: Blob = file;
    if (encrypted) {
      this.#status("Encrypting the file…", null);
      const key = Uint8Array.fromBase64(this.target.recipient.publicKey);
      const sealed = encryptFile(new Uint8Array(await file.arrayBuffer()), key);
      upload = new Blob([sealed as BlobPart], { type: ENCRYPTED_UPLOAD_MIME });
    }
    this.#status("Reading the file…", 0);
    const hash = await hashFile(upload, (p) => this.#status("Reading the file…", p));
    if (this.#file !== file) return;
    this.#upload = upload;
    this.#ref = ownedFileRef(this.target, this.target.relayUrl, {
      hash,
      mime: file.type || "application/octet-stream",
      sizeBytes: file.size,
      fileName: file.name || undefined,
    });
    if (encrypted) this.#ref.encryption = "age";
    this.#status(`Ready to upload (${formatSize(file.size)})`, null);
  }

  /** The field's value: the chosen file's reference, else "". */
  async value(): Promise<unknown> {
    await this.#hashing;
    return this.#file ? this.#ref ?? "" : "";
  }

  /** Uploads the chosen file unless it is already uploaded (nothing to do without one). */
  async upload(): Promise<void> {
    await this.#hashing;
    const file = this.#file;
    const upload = this.#upload;
    const ref = this.#ref;
    if (!file || !upload || !ref || this.#uploaded) return;
    const mime = ref.encryption ? ENCRYPTED_UPLOAD_MIME : ref.mime!;
    try {
      this.#status("Uploading…", 0);
      const slot = await postJson(
        joinUrl(this.target.relayUrl, "/submissions/upload-slot"),
        {
          recipientUserId: this.target.recipient.userId,
          hash: ref.hash,
          mime,
          sizeBytes: upload.size,
        },
        `Requesting an upload slot for "${this.field.label}"`,
        { retries: 2 },
      ) as { url?: unknown };
      if (typeof slot?.url !== "string") throw new Error("The upload-slot answer lacks a url");
      const url = new URL(slot.url, this.target.relayUrl.replace(/\/*$/, "/")).href;
      await putFile(url, upload, mime, ref.hash, (p) => this.#status("Uploading…", p));
      this.#uploaded = true;
      this.#status(`Uploaded (${formatSize(file.size)})`, 1);
    } catch (e) {
      this.#status(`Upload failed: ${(e as Error).message}`, null, true);
      throw e;
    }
  }
}

/** `5.0 MB`, `12 KB`, `300 B`. */
export function formatSize(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1000) return `${Math.round(bytes / 1000)} KB`;
  return `${bytes} B`;
}
