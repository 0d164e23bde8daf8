/**
 * Archived form versions kept in memory: a version never changes once written, so every
 * process may keep what it read, whatever other processes write (used by the forms ports of
 * both backends; ingest reads the version of every envelope it validates).
 *
 * @module
 */

import type { FormVersion } from "./forms.ts";

/** Versions kept in memory at most (the oldest entry goes first). */
const CACHED_VERSIONS = 10_000;

/**
 * A bounded map of archived form versions.
 *
 * @example
 * ```ts
 * const cache = new FormVersionCache();
 * const row = cache.get("f1", 2) ?? cache.keep(await readVersion("f1", 2));
 * ```
 */
export class FormVersionCache {
  #versions = new Map<string, FormVersion>();

  /** The version kept for `formId` and `schemaVersion`, or undefined. */
  get(formId: string, schemaVersion: number): FormVersion | undefined {
    return this.#versions.get(`${formId}\u0000${schemaVersion}`);
  }

  /** Keeps `row` (when there is one) and answers it. */
  keep(row: FormVersion | null): FormVersion | null {
    if (!row) return null;
    if (this.#versions.size >= CACHED_VERSIONS) {
      this.#versions.delete(this.#versions.keys().next().value!);
    }
    this.#versions.set(`${row.formId}\u0000${row.schemaVersion}`, row);
    return row;
  }
}
