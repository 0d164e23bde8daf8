/**
 * The blob half of `sealpost migrate-store`: every blob a KV store knows (its metadata rows),
 * copied from the data dir's `blobs/` folder into an S3-compatible bucket, under the same key
 * and type an upload to that bucket would have. Each PUT goes through the store's own
 * pre-signed URL, which binds the SHA-256: the store itself refuses bytes that are not the
 * blob's. Objects already stored with the blob's size are skipped, so a run that stopped half
 * way is simply run again.
 *
 * @module
 */
import { join } from "node:path";
import { blobPathParts } from "../blobs/fs_store.ts";
import type { S3BlobStore } from "../blobs/s3_store.ts";
import { blobKeyString } from "../blobs/key.ts";
import { blobKeys } from "../store/kv/index.ts";
import type { BlobMeta } from "../store/ports/blob_meta.ts";

/** Blobs copied at once (each is read whole: at most 50 MB). */
const COPY_CONCURRENCY = 4;

/** Lifetime of the pre-signed PUT of one copy, in seconds. */
const PUT_URL_SECONDS = 900;

/** What a blob copy did. */
export interface BlobCopyReport {
  /** Blobs written to the bucket by this run. */
  copied: number;
  /** Blobs the bucket already held with the same size (an earlier run). */
  present: number;
  /** Bytes written by this run. */
  bytes: number;
  /** Blobs the store knows whose file is not in the data dir (`{userId}/{hash}`). */
  missing: string[];
}

/** The store refused a copy; the message says which blob and why. */
export class BlobCopyError extends Error {
  override name = "BlobCopyError";
}

async function readBlob(
  dataDir: string,
  meta: BlobMeta,
): Promise<Uint8Array<ArrayBuffer> | null> {
  try {
    return await Deno.readFile(join(dataDir, "blobs", ...blobPathParts(meta)));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

/**
 * Copies the blobs `kv` knows from `<dataDir>/blobs/` into `store`. Throws
 * {@link BlobCopyError} when the store refuses one.
 *
 * @example
 * ```ts
 * const report = await copyBlobsToS3(kv, "./data", new S3BlobStore(settings, credentials));
 * console.log(`${report.copied} copied, ${report.present} already there`);
 * ```
 */
export async function copyBlobsToS3(
  kv: Deno.Kv,
  dataDir: string,
  store: S3BlobStore,
): Promise<BlobCopyReport> {
  const report: BlobCopyReport = { copied: 0, present: 0, bytes: 0, missing: [] };
  const copyOne = async (meta: BlobMeta) => {
    const key = { userId: meta.userId, hash: meta.hash };
    const stored = await store.stat(key);
    if (stored && stored.sizeBytes === meta.sizeBytes) {
      report.present++;
      return;
    }
    const bytes = await readBlob(dataDir, meta);
    if (bytes === null) {
      report.missing.push(blobKeyString(key));
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    const url = await store.presignPut(key, { mime: meta.mime, sizeBytes: bytes.length }, {
      now,
      expires: now + PUT_URL_SECONDS,
    });
    const headers: Record<string, string> = { "x-amz-content-sha256": meta.hash };
    if (meta.mime !== null) headers["content-type"] = meta.mime;
    const res = await fetch(url, { method: "PUT", headers, body: bytes });
    const answer = await res.text();
    if (!res.ok) {
      const code = /<Code>([^<]{1,64})<\/Code>/.exec(answer)?.[1] ?? "";
      throw new BlobCopyError(
        `The blob store refused ${blobKeyString(key)}: HTTP ${res.status} ${code}`,
      );
    }
    report.copied++;
    report.bytes += bytes.length;
  };
  const rows = kv.list<BlobMeta>({ prefix: blobKeys.metaAll() });
  // One listing, read in turn by the copying workers (never two reads of it at once).
  let reading: Promise<unknown> = Promise.resolve();
  const take = () => {
    const next = reading.then(() => rows.next());
    reading = next;
    return next;
  };
  await Promise.all(Array.from({ length: COPY_CONCURRENCY }, async () => {
    for (let next = await take(); !next.done; next = await take()) {
      await copyOne(next.value.value);
    }
  }));
  report.missing.sort();
  return report;
}
