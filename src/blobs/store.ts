/**
 * The blob store port: where the bytes of uploaded files live. The filesystem store
 * (`fs_store.ts`) implements it; an S3-compatible one can later, behind the same interface.
 * Metadata (mime, size, upload time, claim) is not the store's business: it lives in KV.
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
