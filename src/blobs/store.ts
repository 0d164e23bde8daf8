/**
 * The blob store ports: where the bytes of uploaded files live. {@linkcode BlobStore} is a
 * store the bytes pass through Sealpost to and from (the filesystem store, `fs_store.ts`);
 * {@linkcode DirectBlobStore} one that senders and readers reach themselves through
 * pre-signed URLs (an S3-compatible object store, `s3_store.ts`). Metadata (mime, size,
 * upload time, claim) is not the store's business: it lives in KV.
 *
 * @module
 */
import type { BlobKey } from "./key.ts";

/** Why a blob could not be written; nothing of it stays behind. */
export type BlobWriteFailure =
  /** The body grew past the size cap. */
  | "too_large"
  /** The body was empty. */
  | "empty"
  /** The SHA-256 of the body differs from the key's hash. */
  | "hash_mismatch"
  /** The body could not be read to its end (for example the client went away). */
  | "unreadable";

/** Writing a blob failed for `reason`; the message names the offending value. */
export class BlobWriteError extends Error {
  override name = "BlobWriteError";
  constructor(readonly reason: BlobWriteFailure, message: string) {
    super(message);
  }
}

/** Bytes written aside, hashed and checked, not yet visible under their key. */
export interface StagedBlob {
  readonly sizeBytes: number;
  /** Makes the bytes visible under the key, atomically (replacing identical bytes). */
  commit(): Promise<void>;
  /** Drops the staged bytes; harmless after {@linkcode StagedBlob.commit} or twice. */
  discard(): Promise<void>;
}

/** An inclusive byte range. */
export interface ByteRange {
  start: number;
  end: number;
}

/** Content-addressed storage of blob bytes. */
export interface BlobStore {
  /**
   * Streams `body` aside while hashing it. Fails with {@linkcode BlobWriteError} as soon as
   * the body passes `maxBytes`, or at its end when it is empty or its SHA-256 is not
   * `key.hash`. Memory stays flat whatever the size.
   */
  stage(key: BlobKey, body: ReadableStream<Uint8Array>, maxBytes: number): Promise<StagedBlob>;
  /** The stored size of `key`, or null when it is not stored. */
  size(key: BlobKey): Promise<number | null>;
  /** Streams the bytes of `key` (all, or `range`), or null when it is not stored. */
  read(key: BlobKey, range?: ByteRange): Promise<ReadableStream<Uint8Array> | null>;
  /** Deletes the bytes of `key`; nothing happens when they are not stored. */
  remove(key: BlobKey): Promise<void>;
}

/** What a direct store tells of a stored object. */
export interface StoredObject {
  sizeBytes: number;
  /** The Content-Type it was stored with (null when the listing does not tell). */
  contentType: string | null;
  lastModified: Date;
}

/**
 * A store senders PUT to and owners GET from directly, through URLs the relay pre-signs: the
 * bytes never pass through Sealpost. The relay learns of an upload by asking the store
 * ({@linkcode DirectBlobStore.stat}) when a claim or a read refers to it.
 */
export interface DirectBlobStore {
  /** The longest a pre-signed URL of this store can live, in seconds (S3: 7 days). */
  readonly maxUrlLifetimeSeconds: number;
  /**
   * A pre-signed PUT URL of `key` valid until `expires` (epoch seconds, counted from `now`),
   * binding the store to the declared hash and, when given, the Content-Type and the
   * Content-Length: the store itself refuses other bytes, another type or another length.
   */
  presignPut(
    key: BlobKey,
    declared: { mime: string | null; sizeBytes: number | null },
    validity: { now: number; expires: number },
  ): Promise<string>;
  /** A pre-signed GET URL of `key` whose answer carries `served`'s type and disposition. */
  presignGet(
    key: BlobKey,
    served: { contentType: string; contentDisposition: string },
    validity: { now: number; expires: number },
  ): Promise<string>;
  /** What is stored under `key`, or null when nothing is. */
  stat(key: BlobKey): Promise<StoredObject | null>;
  /** Deletes `key`; nothing happens when it is not stored. */
  remove(key: BlobKey): Promise<void>;
  /** Every blob in the store (objects whose name is no blob key are skipped). */
  list(): AsyncIterable<{ key: BlobKey; object: StoredObject }>;
}
