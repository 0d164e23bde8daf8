/**
 * File uploads: upload slots, pre-signed PUT and GET URLs, the content-addressed blob store,
 * per-user quota, claims and the orphan sweep. See docs/uploads.md.
 *
 * @module
 */
export {
  Blobs,
  type BlobSettings,
  type BlobsOptions,
  type PresignedUrl,
  type SlotRequest,
  type UploadReceipt,
  type UploadSlot,
} from "./service.ts";
export { type BlobDeps, blobRoutes } from "./api/index.ts";
export { type BlobKey, blobKeyString } from "./key.ts";
export type { BlobStore, ByteRange, StagedBlob } from "./store.ts";
export { BlobWriteError } from "./store.ts";
export { blobPathParts, FsBlobStore } from "./fs_store.ts";
export { type SignedQuery, UrlSigner } from "./signing.ts";
export { PeriodicTask, type SweepResult } from "./orphans.ts";
