/**
 * Backup and restore of a data dir: one tar archive with a consistent store snapshot, the
 * blobs it knows and the secrets (see docs/operations.md, "Backup and restore").
 *
 * @module
 */
export { BackupError, type BackupSummary, createBackup } from "./backup.ts";
export { restoreBackup, RestoreError, type RestoreSummary } from "./restore.ts";
export type { BackupManifest } from "./format.ts";
