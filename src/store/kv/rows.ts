/**
 * Rows only the Deno KV store keeps (the layout's own values, next to the key builders of
 * src/store/kv/keys.ts): the domain types they carry live with their ports in src/store/ports.
 *
 * @module
 */

import type { EnvelopeHeader } from "../ports/envelopes.ts";
import type { RecordHead } from "../ports/records.ts";
import type { SegmentRef } from "./segments.ts";

/**
 * A queued envelope version, in its recipient's queue (ordered by `seq`). Stored, like the
 * submission head, in the compact encoding of src/store/kv/envelope_rows.ts.
 */
export interface QueueRow extends EnvelopeHeader {
  /** Where the sealed box lies in the segment files (src/store/kv/segments.ts). */
  ref: SegmentRef;
}

/**
 * The value of a `webhookKeys.deliveryWebhook` entry: the delivery's configuration, and its
 * body unless that is in parts. The body sits here, not in the delivery row, so that neither
 * entry outgrows what SQLite keeps in a B-tree page (about 1 KB with the key; more takes an
 * overflow page per write), and the row, rewritten by every attempt, stays small.
 */
export interface WebhookDeliveryRef {
  webhookId: string;
  /** The body, up to 16 KiB (else null, and parts). */
  body: Uint8Array | null;
}

/** The value of a `webhookKeys.pending` entry. */
export interface WebhookPendingRow {
  webhookId: string;
  /** Epoch milliseconds. */
  dueAt: number;
}

/**
 * A record's head as Deno KV keeps it: the port's head, with its values inline or as a large
 * value under `vaultKeys.recordValues`.
 */
export interface VaultRecordRow extends Omit<RecordHead, "files"> {
  /** The values, when small enough to live in this row (else absent, and parts). */
  values?: Record<string, unknown>;
  /** Parts of larger values under `vaultKeys.recordValues` (0 when inline). */
  parts: number;
  /** Hashes of the owned files its values refer to (absent: none). */
  files?: string[];
  /**
   * When a submission's record was deleted: the head stays as a tombstone (no values) so a late
   * re-delivery of the same envelope cannot bring the record back. Absent on live records.
   */
  deletedAt?: string;
}

/** Owned files of a record to release at the relay (written with the change that dropped them). */
export interface VaultFileReleaseRow {
  formId: string;
  recordId: string;
  hashes: string[];
}
