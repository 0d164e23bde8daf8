/**
 * The port of the vault's pending file releases: files a changed or deleted record no longer
 * refers to, written by the records port in the change's own atomic write (a small outbox),
 * handed to the relay by src/vault/file_release.ts.
 *
 * @module
 */

/** One pending release: the owned files `hashes` record `recordId` of `formId` dropped. */
export interface FileRelease {
  /** Unique; ids sort by creation time. */
  id: string;
  formId: string;
  recordId: string;
  hashes: string[];
}

/**
 * Storage of pending file releases.
 *
 * @example
 * ```ts
 * for (const release of await releases.pending(100)) await releases.done(release.id);
 * ```
 */
export interface FileReleasesPort {
  /** Up to `limit` pending releases, oldest first; with `after`, those after that id. */
  pending(limit: number, after?: string): Promise<FileRelease[]>;

  /** Removes a handled release (idempotent: an unknown id is no error). */
  done(id: string): Promise<void>;
}
