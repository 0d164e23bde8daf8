/**
 * Read links of record files. A plain owned file is read from the relay with a pre-signed
 * URL; an encrypted one (`encryption: "age"`, forms with `files: "encrypted"`) is served by
 * the vault, decrypted while it streams, at a link the vault signs:
 *
 * `GET /vault-files/{formId}/{hash}?size=&mime=&name=&exp=&sig=`
 *
 * The link names the file's plaintext metadata (from the sealed reference) and expires at
 * `exp` (Unix seconds); `sig` is an HMAC-SHA256 under a key derived from the vault's manifest
 * key, so links survive restarts and nobody else can mint them. Webhook bodies and the
 * console use these links, so the relay never sees plaintext.
 *
 * @module
 */
import { decryptFileStream } from "../crypto/age.ts";
import { hmacSha256Hex, timingSafeEqual } from "../crypto/hmac.ts";
import type { OwnedFileRef } from "../forms/file_ref.ts";
import { Forbidden, NotFound, Unprocessable } from "../errors/index.ts";
import type { VaultDatabase, VaultDatabasesPort } from "../store/ports/vault_databases.ts";
import type { VaultForms } from "./forms.ts";
import type { VaultKeys } from "./keys.ts";
import type { RelayLink } from "./relay_link.ts";

/** Where the vault serves decrypted files. */
export const FILE_LINK_PATH = "/vault-files";

/** What a decrypted-file link names: the stored file and its plaintext's metadata. */
export interface FileLink {
  formId: string;
  hash: string;
  sizeBytes: number;
  mime: string;
  fileName: string;
  /** Unix seconds after which the link is refused. */
  exp: number;
}

/** A decrypted file, ready to stream. */
export interface OpenedFile {
  link: FileLink;
  body: ReadableStream<Uint8Array>;
}

/** Media types a browser may show inline (never SVG or HTML, which can run script). */
const INLINE = /^image\/(png|jpeg|gif|webp|avif|bmp)$/;

/** Whether a decrypted file of `mime` is served inline (else as a download). */
export function servedInline(mime: string): boolean {
  return INLINE.test(mime.split(";", 1)[0].trim().toLowerCase());
}

function canonical(link: FileLink): string {
  return JSON.stringify([
    "sealpost-file-link-v1",
    link.formId,
    link.hash,
    link.sizeBytes,
    link.mime,
    link.fileName,
    link.exp,
  ]);
}

/**
 * The vault's file links: signing them, and opening encrypted files for them.
 *
 * @example
 * ```ts
 * const url = await vault.files.url("contact", ref, 3600);
 * ```
 */
export class VaultFiles {
  #key: Promise<Uint8Array> | null = null;

  constructor(
    private databases: VaultDatabasesPort,
    private keys: VaultKeys,
    private link: RelayLink,
    private forms: VaultForms,
    /** The vault's public base URL (set again once the server listens). */
    public baseUrl: string,
  ) {}

  /** The link-signing key: derived from the manifest key, never stored or shown. */
  #linkKey(): Promise<Uint8Array> {
    this.#key ??= this.keys.manifestKey().then(({ secretKey }) =>
      Uint8Array.fromHex(hmacSha256Hex(secretKey, "sealpost vault file links v1"))
    );
    return this.#key;
  }

  async #sign(link: FileLink): Promise<string> {
    return hmacSha256Hex(await this.#linkKey(), canonical(link));
  }

  /**
   * A read URL of an owned file of form `formId`, valid `lifetimeSeconds`: a signed vault
   * link for an encrypted file, else a fresh pre-signed relay URL; null when unknown.
   */
  async url(formId: string, ref: OwnedFileRef, lifetimeSeconds: number): Promise<string | null> {
    if (ref.encryption === "age" && typeof ref.sizeBytes === "number") {
      const link: FileLink = {
        formId,
        hash: ref.hash,
        sizeBytes: ref.sizeBytes,
        mime: ref.mime ?? "application/octet-stream",
        fileName: ref.fileName ?? "",
        exp: Math.floor(Date.now() / 1000) + lifetimeSeconds,
      };
      const query = new URLSearchParams({
        size: String(link.sizeBytes),
        mime: link.mime,
        name: link.fileName,
        exp: String(link.exp),
        sig: await this.#sign(link),
      });
      const path = `${FILE_LINK_PATH}/${encodeURIComponent(formId)}/${ref.hash}`;
      return `${this.baseUrl.replace(/\/+$/, "")}${path}?${query}`;
    }
    // Files are stored under the relay user id of the form's database, which a vault-role
    // process knows under another user id of its own.
    const db = await this.#database(formId);
    if (!db) return null;
    return (await this.link.blobReadUrl(db.relayUserId, ref.hash, lifetimeSeconds))?.url ?? null;
  }

  /** Checks a link's parameters and signature: 403 `invalid_link` or `link_expired`. */
  async verify(
    formId: string,
    hash: string,
    query: Record<string, string | undefined>,
    nowMs = Date.now(),
  ): Promise<FileLink> {
    const size = Number(query.size);
    const exp = Number(query.exp);
    const invalid = new Forbidden("invalid_link", "This file link is not valid");
    if (
      !/^[0-9a-f]{64}$/.test(hash) || !Number.isSafeInteger(size) || size < 0 ||
      !Number.isSafeInteger(exp) || query.mime === undefined || query.name === undefined ||
      typeof query.sig !== "string"
    ) throw invalid;
    const link: FileLink = {
      formId,
      hash,
      sizeBytes: size,
      mime: query.mime,
      fileName: query.name,
      exp,
    };
    if (!timingSafeEqual(await this.#sign(link), query.sig)) throw invalid;
    if (exp * 1000 < nowMs) {
      throw new Forbidden("link_expired", "This file link has expired; ask for a fresh one");
    }
    return link;
  }

  /**
   * Reads the stored ciphertext (in-process from the blob store when the relay shares this
   * process, else from the relay over HTTP) and decrypts it with the form's database key,
   * streaming (64 KiB at a time). The first chunk is checked before this resolves, so a file
   * that does not decrypt is a 422 `file_undecryptable`; damage further in ends the stream
   * with an error (the download fails; no unauthenticated byte is ever served).
   */
  async open(link: FileLink): Promise<OpenedFile> {
    const db = await this.#database(link.formId);
    const ciphertext = db ? await this.link.readBlob(db.relayUserId, link.hash) : null;
    if (!db || !ciphertext) {
      throw new NotFound("file_not_found", "The relay has no such file");
    }
    const { secretKey } = await this.keys.databaseKey(db.fingerprint);
    try {
      return { link, body: await decryptFileStream(ciphertext, secretKey, link.sizeBytes) };
    } catch (err) {
      await ciphertext.cancel().catch(() => {});
      throw new Unprocessable(
        "file_undecryptable",
        `The stored file does not decrypt with this form's key (altered, damaged or not ` +
          `encrypted to it): ${message(err)}`,
      );
    }
  }

  async #database(formId: string): Promise<VaultDatabase | null> {
    const form = await this.forms.row(formId);
    if (!form) return null;
    return await this.databases.get(form.databaseId);
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
