/**
 * File uploads: upload slots, pre-signed PUT and GET URLs, the content-addressed blob store,
 * per-user quota, claims and the orphan sweep. See docs/uploads.md.
 *
 * @module
 */
export { Blobs } from "./service.ts";
export type {
  BlobSettings,
  BlobsOptions,
  PresignedUrl,
  SignedQuery,
  SlotRequest,
  UploadReceipt,
  UploadSlot,
} from "./service_types.ts";
export { type BlobDeps, blobRoutes } from "./routes.ts";
export { type BlobKey, blobKeyString } from "./key.ts";
export type { BlobStore, ByteRange, StagedBlob } from "./store.ts";
export { BlobWriteError } from "./store.ts";
export { blobPathParts, FsBlobStore } from "./fs_store.ts";
export { UrlSigner } from "./signing.ts";
export { PeriodicTask, type SweepResult } from "./orphans.ts";
