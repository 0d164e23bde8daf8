/**
 * Ingest's record writes: a checked envelope becomes a record (or updates one) through the
 * records port, committed with the removal of a quarantine row it may have left or, in role
 * `all`, its ack.
 *
 * @module
 */
import { base64DecodedLength } from "../crypto/encoding.ts";
import type { SubmissionPayload } from "../forms/payload.ts";
import type { QuarantinePort } from "../store/ports/quarantine.ts";
import { type RecordsPort, RecordTooLargeError } from "../store/ports/records.ts";
import type { WritePart } from "../store/ports/write_part.ts";
import { Quarantine } from "./envelope_checks.ts";
import { quarantineId } from "./quarantine_rows.ts";
import type { QueueItem } from "./relay_link.ts";

/**
 * Writes ingested records.
 *
 * @example
 * ```ts
 * const records = new RecordApplier(store.records, store.quarantine);
 * await records.apply(item, payload, null);
 * ```
 */
export class RecordApplier {
  constructor(private records: RecordsPort, private quarantine: QuarantinePort) {}

  /**
   * Saves `payload` as the record of `item`'s submission (a new one for version 1, an update
   * for an amendment), with `ack` in the same write when given; "duplicate" when the record
   * already holds this version or a newer one. A `Quarantine` for what cannot be saved:
   * `record_missing`, `record_deleted`, `too_large`.
   */
  async apply(
    item: QueueItem,
    payload: SubmissionPayload,
    ack: WritePart | null,
  ): Promise<"record" | "duplicate"> {
    // A quarantine row this envelope may have left (quarantined, then not acked) is deleted
    // with the record; with the ack in the same write as the quarantine row, an envelope
    // still queued has none.
    const parts = ack
      ? [ack]
      : [this.quarantine.removal(quarantineId(item), base64DecodedLength(item.ciphertext))];
    let outcome;
    try {
      outcome = await this.records.applySubmission({
        formId: item.formId,
        recordId: item.submissionId,
        schemaVersion: payload.formVersion,
        values: payload.values,
        submissionId: item.submissionId,
        appliedVersion: item.version,
      }, parts);
    } catch (err) {
      if (err instanceof RecordTooLargeError) {
        throw new Quarantine("too_large", err.message, payload.formVersion);
      }
      throw err;
    }
    if (outcome === "missing") {
      throw new Quarantine(
        "record_missing",
        `Amendment version ${item.version} of submission ${item.submissionId} has no ` +
          "record to update (its first version is quarantined or was discarded)",
        payload.formVersion,
      );
    }
    if (outcome === "deleted") {
      throw new Quarantine(
        "record_deleted",
        `The record of submission ${item.submissionId} was deleted; this is an amendment`,
        payload.formVersion,
      );
    }
    return outcome;
  }
}
