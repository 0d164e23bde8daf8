/**
 * The file releases port on Deno KV: rows under `vaultKeys.fileRelease`, written by the
 * records store (record_writes.ts) with the change that dropped the files.
 *
 * @module
 */
import { vaultKeys } from "./keys.ts";
import type { FileRelease, FileReleasesPort } from "../ports/file_releases.ts";
import { KvWrite } from "./write.ts";

/** Owned files of a record to release at the relay (written with the change that dropped them). */
export interface VaultFileReleaseRow {
  formId: string;
  recordId: string;
  hashes: string[];
}

/**
 * The Deno KV store of pending file releases.
 *
 * @example
 * ```ts
 * const releases = new KvFileReleases(kv);
 * await releases.pending(100);
 * ```
 */
export class KvFileReleases implements FileReleasesPort {
  constructor(private kv: Deno.Kv) {}

  async pending(limit: number, after?: string): Promise<FileRelease[]> {
    const prefix = vaultKeys.fileReleasesAll();
    const selector = after === undefined
      ? { prefix }
      : { start: [...vaultKeys.fileRelease(after), ""], end: [...prefix, "\uffff"] };
    const iter = this.kv.list<VaultFileReleaseRow>(selector, { limit });
    return await Array.fromAsync(
      iter,
      (entry) => ({ id: String(entry.key.at(-1)), ...entry.value }),
    );
  }

  async done(id: string): Promise<void> {
    await new KvWrite().delete(vaultKeys.fileRelease(id)).commit(this.kv);
  }
}
