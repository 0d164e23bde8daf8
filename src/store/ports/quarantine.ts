/**
 * The port of the vault's quarantine: envelopes that could not become records, each kept with
 * its code, reason and sealed box until the owner retries or discards it.
 *
 * @module
 */

import type { WritePart } from "./write_part.ts";

/** An envelope version the vault could not turn into a record; kept until retried. */
export interface QuarantinedEnvelope {
  /** `{submissionId}.{version}` */
  id: string;
  databaseId: string;
  fingerprint: string;
  submissionId: string;
  version: number;
  formId: string;
  /** The payload's formVersion, when it could be read. */
  formVersion: number | null;
  /** Machine-readable reason, e.g. `unknown_form_version`, `invalid_values`. */
  code: string;
  /** What went wrong, for the owner. */
  reason: string;
  receivedAt: string;
  quarantinedAt: string;
  /** Parts of the sealed box under `vaultKeys.quarantineData`. */
  parts: number;
}

/** What a caller states about a quarantined envelope; the store adds `quarantinedAt`, `parts`. */
export type QuarantineEntry = Omit<QuarantinedEnvelope, "quarantinedAt" | "parts">;

/**
 * Storage of quarantined envelopes, by id `{submissionId}.{version}`.
 *
 * @example
 * ```ts
 * await quarantine.save(entry, sealedBox, null);
 * const again = await quarantine.ciphertext(entry.id); // the same bytes
 * ```
 */
export interface QuarantinePort {
  /**
   * Saves `entry` with its sealed box `ciphertext`; `ack` (when given) commits in the same
   * atomic write as the row. Idempotent: saving an id again keeps its first `quarantinedAt`
   * and stored box and replaces code and reason. The box may be written ahead of the row (a
   * crash between leaves no row; the next save completes it).
   */
  save(entry: QuarantineEntry, ciphertext: Uint8Array, ack: WritePart | null): Promise<void>;

  /** The row `id`, or null. */
  get(id: string): Promise<QuarantinedEnvelope | null>;

  /** Every quarantined envelope of the vault, ordered by id. */
  list(): Promise<QuarantinedEnvelope[]>;

  /** How many envelopes are quarantined, counted up to `cap` (bounded work, for metrics). */
  count(cap: number): Promise<number>;

  /** The sealed box of quarantined envelope `id`, as saved; null when there is none. */
  ciphertext(id: string): Promise<Uint8Array | null>;

  /**
   * A part, for another port's atomic write, that deletes the quarantine row `id` of an
   * envelope whose sealed box has `ciphertextBytes` bytes, with its stored box. Deleting what
   * is not there is no error.
   */
  removal(id: string, ciphertextBytes: number): WritePart;

  /**
   * Deletes row `id` and its box, with `part` (when given) in the same atomic write. False,
   * nothing written, when a check of `part` failed or there is no such row.
   */
  discard(id: string, part: WritePart | null): Promise<boolean>;
}
