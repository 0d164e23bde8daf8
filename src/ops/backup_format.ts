/**
 * The backup archive's layout, shared by the writer and the reader.
 *
 * A backup is one ustar file (mode 0600: it holds the secrets):
 * - `store/sealpost.kv`: a consistent snapshot of the KV store (SQLite `VACUUM INTO`);
 * - `files/<path>`: every other file of the data dir (relay secret, credentials, vault keys,
 *   the vault's relay token), modes kept;
 * - `blobs/<userId>/<aa>/<bb>/<hash>`: the bytes of every blob the snapshot knows, each
 *   checked against its name (content-addressed) on restore;
 * - `sealpost-backup.json`, last: the {@link BackupManifest}.
 *
 * @module
 */
import { KV_FILE } from "../store/kv/index.ts";

/** The manifest's name inside the archive. */
export const MANIFEST_NAME = "sealpost-backup.json";
/** The snapshot's name inside the archive. */
export const STORE_ENTRY = `store/${KV_FILE}`;
/** Folder of the data dir's other files inside the archive. */
export const FILES_PREFIX = "files/";
/** Folder of the blobs inside the archive (and inside a data dir). */
export const BLOBS_PREFIX = "blobs/";
/** The archive format's version; a reader refuses others. */
export const FORMAT_VERSION = 1;

/** One archived file (not a blob) with its size and SHA-256. */
export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

/** What `sealpost-backup.json` holds. */
export interface BackupManifest {
  format: "sealpost-backup";
  formatVersion: number;
  /** The program version that wrote it. */
  sealpostVersion: string;
  createdAt: string;
  /** The snapshot and the data dir's other files. */
  files: ManifestFile[];
  /** Blobs archived. */
  blobs: number;
  blobBytes: number;
  /** Blobs the snapshot knew whose bytes were gone when copied (removed meanwhile). */
  missingBlobs: string[];
}

/**
 * Whether a data dir file belongs to the store (snapshotted instead of copied).
 *
 * @example
 * ```ts
 * isStoreFile("sealpost.kv-wal"); // true
 * isStoreFile("relay.secret"); // false
 * ```
 */
export function isStoreFile(relative: string): boolean {
  return relative === KV_FILE || relative.startsWith(`${KV_FILE}-`);
}
