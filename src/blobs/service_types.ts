/**
 * The types of the blob service's API: its options, slot and upload requests, pre-signed
 * URLs and receipts (see `service.ts`).
 *
 * @module
 */
import type { Config } from "../config/index.ts";
import type { UrlSigner } from "./signing.ts";
import type { BlobStore, DirectBlobStore } from "./store.ts";

/** The settings of the `[blobs]` configuration section. */
export type BlobSettings = Config["blobs"];

/** What {@linkcode Blobs} needs. */
export interface BlobsOptions {
  kv: Deno.Kv;
  /** Where the bytes live: passing through Sealpost (fs), or reached directly (S3). */
  store: BlobStore | DirectBlobStore;
  signer: UrlSigner;
  settings: BlobSettings;
  /** The public base URL, for URLs made outside a request (for example webhook bodies). */
  baseUrl: () => string;
  /** The clock, epoch milliseconds. */
  now?: () => number;
}

/** The body of `POST /submissions/upload-slot`. */
export interface SlotRequest {
  recipientUserId: string;
  hash: string;
  mime?: string | null;
  sizeBytes?: number | null;
}

/** A pre-signed URL and when it stops working. */
export interface PresignedUrl {
  url: string;
  expiresAtUtc: string;
}

/** What `POST /submissions/upload-slot` answers. */
export interface UploadSlot extends PresignedUrl {
  /** The storage key `{recipientUserId}/{hash}`. */
  key: string;
}

/** The query parameters of a pre-signed URL, as received. */
export interface SignedQuery {
  expires?: string;
  mime?: string;
  max?: string;
  sig?: string;
}

/** The headers of a PUT that matter, and its body. */
export interface UploadRequest {
  contentType: string | null;
  contentLength: string | null;
  body: ReadableStream<Uint8Array> | null;
}

/** What a PUT stored: all but `created` comes from the request (no existence oracle). */
export interface UploadReceipt {
  key: string;
  hash: string;
  sizeBytes: number;
  /** The mime the URL signed (null for none). */
  mime: string | null;
  /** False when the same bytes were already stored (the PUT is idempotent); not sent out. */
  created: boolean;
}
