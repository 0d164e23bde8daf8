/**
 * The manifests port: the relay's directory of published forms (one row per form id, with the
 * manifest as published and, while its owner has it closed, the closure).
 *
 * @module
 */
import type { FormClosure } from "./forms.ts";

/** A published form manifest. */
export interface PublishedForm {
  formId: string;
  userId: string;
  fingerprint: string;
  publicKey: string;
  schemaVersion: number;
  manifest: Record<string, unknown>;
  publishedAt: string;
  /** Set while the owner has the form closed: intake answers 410 `form_closed`. */
  closed?: FormClosure;
}

/** The published form row is larger than the store takes as one value. */
export class ManifestTooLargeError extends Error {
  override name = "ManifestTooLargeError";
}

/** Storage of published forms. */
export interface ManifestPort {
  /** The published form `formId`, or null. */
  get(formId: string): Promise<PublishedForm | null>;
  /**
   * Stores `row` as form `row.formId` if the published row is still `expected`, the row the
   * caller read (null: none was published). False (nothing written) when another publish
   * changed it meanwhile. Throws {@linkcode ManifestTooLargeError} (nothing written) when the
   * row takes more than 64 KiB as stored: a string counts one byte a character, two once one
   * of its characters is above U+00FF (Deno KV's value encoding; every implementation keeps
   * this limit, so a manifest publishes the same everywhere).
   */
  put(row: PublishedForm, expected: PublishedForm | null): Promise<boolean>;
  /**
   * Removes form `expected.formId` (unpublished: it reads as never published) if the
   * published row is still `expected`. False (nothing removed) when it changed meanwhile.
   */
  remove(expected: PublishedForm): Promise<boolean>;
}
