/**
 * How the relay learns of uploads it never sees (a {@linkcode DirectBlobStore}, such as S3):
 * when a claim or a read refers to a blob the metadata has no row for, the store is asked (HEAD) and a
 * stored object is recorded like an upload through Sealpost: size, type, the quota. And the
 * sweep of objects no row ever recorded, by listing the bucket.
 *
 * @module
 */
import { MAX_FILE_BYTES } from "../forms/file_ref.ts";
import { type BlobMeta, type BlobMetaPort, QuotaExceededError } from "../store/ports/blob_meta.ts";
import type { KeyedLock } from "./_lock.ts";
import { type BlobKey, blobKeyString } from "./key.ts";
import { isSignableMime } from "./mime.ts";
import type { SweepResult } from "./orphans.ts";
import type { BlobStore, DirectBlobStore } from "./store.ts";

/** Whether `store` is reached directly by senders and readers (pre-signed store URLs). */
export function isDirect(store: BlobStore | DirectBlobStore): store is DirectBlobStore {
  return "presignPut" in store;
}

/**
 * The mime to record of an object stored with `contentType`: the type the PUT URL signed
 * (the store refused any other), or, for a slot that declared none, the type the sender sent
 * (which it could as well have declared); null for none, the generic octet streams, or a value
 * that is no media type.
 *
 * @example
 * ```ts
 * recordedMime("image/png"); // "image/png"
 * recordedMime("binary/octet-stream"); // null
 * ```
 */
export function recordedMime(contentType: string | null): string | null {
  if (contentType === null || !isSignableMime(contentType)) return null;
  const essence = contentType.split(";", 1)[0].trim().toLowerCase();
  return essence === "application/octet-stream" || essence === "binary/octet-stream"
    ? null
    : contentType;
}

/**
 * The metadata of `key`: its row, or, when there is none, the object in `store` recorded now
 * (null when nothing is stored, when the object is empty or over the 50 MB cap, which is then
 * deleted, or when it does not fit in the user's quota, which leaves it to the sweep).
 * Run under the key's lock.
 *
 * @example
 * ```ts
 * const meta = await knownBlob(blobMeta, store, { userId, hash }, quotaBytes, new Date());
 * ```
 */
export async function knownBlob(
  metadata: BlobMetaPort,
  store: DirectBlobStore,
  key: BlobKey,
  quotaBytes: number,
  now: Date,
): Promise<BlobMeta | null> {
  const meta = await metadata.get(key);
  if (meta) return meta;
  const object = await store.stat(key);
  if (!object) return null;
  if (object.sizeBytes < 1 || object.sizeBytes > MAX_FILE_BYTES) {
    await store.remove(key);
    return null;
  }
  try {
    const upload = { mime: recordedMime(object.contentType), sizeBytes: object.sizeBytes };
    return (await metadata.recordUpload(key, upload, quotaBytes, now)).meta;
  } catch (err) {
    if (err instanceof QuotaExceededError) return null;
    throw err;
  }
}

/** Requests to the store at once, at most, when many blobs are asked about. */
const STORE_REQUESTS_AT_ONCE = 16;

/**
 * Runs `each` over `items`, {@linkcode STORE_REQUESTS_AT_ONCE} at a time (a claim of 1000
 * hashes asks the store about each one not recorded yet).
 *
 * @example
 * ```ts
 * await inParallel(hashes, (hash) => record(hash));
 * ```
 */
export async function inParallel<T>(
  items: T[],
  each: (item: T) => Promise<unknown>,
): Promise<void> {
  for (let i = 0; i < items.length; i += STORE_REQUESTS_AT_ONCE) {
    await Promise.all(items.slice(i, i + STORE_REQUESTS_AT_ONCE).map(each));
  }
}

/**
 * Deletes the objects of `store` that no row records and that were last written at or before
 * `cutoffMs` (uploads no claim or read ever referred to), each under `lock`.
 *
 * @example
 * ```ts
 * const { deleted } = await sweepUnrecorded(blobMeta, store, lock, Date.now() - graceMs);
 * ```
 */
export async function sweepUnrecorded(
  metadata: BlobMetaPort,
  store: DirectBlobStore,
  lock: KeyedLock,
  cutoffMs: number,
): Promise<SweepResult> {
  const result: SweepResult = { deleted: 0, bytes: 0 };
  for await (const { key, object } of store.list()) {
    if (object.lastModified.getTime() > cutoffMs) continue;
    await lock.run(blobKeyString(key), async () => {
      if (await metadata.get(key)) return;
      await store.remove(key);
      result.deleted++;
      result.bytes += object.sizeBytes;
    });
  }
  return result;
}
