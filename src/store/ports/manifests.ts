/**
 * The manifests port: the relay's directory of published forms (one row per form id, with the
 * manifest as published and, while its owner has it closed, the closure).
 *
 * @module
 */
import type { FormClosure, FormRow } from "../rows.ts";

export type { FormClosure, FormRow };

/** The published form row is larger than the store takes as one value. */
export class ManifestTooLargeError extends Error {
  override name = "ManifestTooLargeError";
}

/** Storage of published forms. */
export interface ManifestPort {
  /** The published form `formId`, or null. */
  get(formId: string): Promise<FormRow | null>;
  /**
   * Stores `row` as form `row.formId` if the published row is still `expected`, the row the
   * caller read (null: none was published). False (nothing written) when another publish
   * changed it meanwhile. Throws {@linkcode ManifestTooLargeError} (nothing written) when the
   * row takes more than 64 KiB as stored: a string counts one byte a character, two once one
   * of its characters is above U+00FF (Deno KV's value encoding; every implementation keeps
   * this limit, so a manifest publishes the same everywhere).
   */
  put(row: FormRow, expected: FormRow | null): Promise<boolean>;
  /**
   * Removes form `expected.formId` (unpublished: it reads as never published) if the
   * published row is still `expected`. False (nothing removed) when it changed meanwhile.
   */
  remove(expected: FormRow): Promise<boolean>;
}
