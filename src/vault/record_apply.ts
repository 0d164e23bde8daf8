/**
 * Ingest's record writes: a checked envelope becomes a record (or updates one), group-committed
 * with the deletion of a quarantine row it may have left and, in role `all`, its ack.
 *
 * @module
 */
import { base64DecodedLength } from "../crypto/encoding.ts";
import { announceRecordEvents, type StoredRecordEvent } from "../events/record_event.ts";
import type { SubmissionPayload } from "../forms/payload.ts";
import type { GroupCommitter } from "../store/group_commit.ts";
import { vaultKeys, type VaultQuarantineRow, type VaultRecordRow } from "../store/keys.ts";
import { deleteParts } from "../store/parts.ts";
import { addKvPart, type WritePart } from "../store/write_part.ts";
import { Quarantine } from "./envelope_checks.ts";
import { quarantineId, quarantineParts } from "./quarantine_rows.ts";
import {
  addRecordWrite,
  checkRecordSize,
  RecordTooLargeError,
  type RecordWrite,
} from "./records.ts";
import type { QueueItem } from "./relay_link.ts";

/**
 * Writes ingested records.
 *
 * @example
 * ```ts
 * const records = new RecordApplier(kv, new GroupCommitter(kv, undefined, 2));
 * await records.apply(item, payload, null);
 * ```
 */
export class RecordApplier {
  constructor(private kv: Deno.Kv, private committer: GroupCommitter) {}

  /**
   * Saves `payload` as the record of `item`'s submission (a new one for version 1, an update
   * for an amendment), with `ack` in the same operation when given; "duplicate" when the
   * record already holds this version or a newer one. A `Quarantine` for what cannot be
   * saved: `record_missing`, `record_deleted`, `too_large`.
   */
  async apply(
    item: QueueItem,
    payload: SubmissionPayload,
    ack: WritePart | null,
  ): Promise<"record" | "duplicate"> {
    const qid = quarantineId(item);
    const recordKey = vaultKeys.record(item.formId, item.submissionId);
    const write: RecordWrite = {
      formId: item.formId,
      recordId: item.submissionId,
      schemaVersion: payload.formVersion,
      values: payload.values,
      submissionId: item.submissionId,
      appliedVersion: item.version,
    };
    try {
      const bytes = checkRecordSize(payload.values);
      // The common case, a new submission: its record key is free (a deleted record leaves a
      // tombstone there). One check instead of a read keeps ~100 records per atomic
      // operation. A quarantine row this envelope may have left (quarantined, then not acked)
      // is deleted blindly; with the ack in the same operation as the quarantine row, a
      // queued envelope has none.
      const fresh = [{ key: recordKey, versionstamp: null }];
      const blindParts = ack ? null : quarantineParts(base64DecodedLength(item.ciphertext));
      // An amendment (version 2 and up) always takes the careful path: it needs a record.
      if (
        item.version === 1 &&
        await this.#commitWrite(item, fresh, null, write, bytes, blindParts, ack)
      ) {
        return "record";
      }
      for (let attempt = 0; attempt < 10; attempt++) {
        // One read for the record (or its tombstone) and a quarantine row of this envelope.
        const [current, stale] = await this.kv.getMany<[VaultRecordRow, VaultQuarantineRow]>([
          recordKey,
          vaultKeys.quarantine(qid),
        ]);
        const applied = current.value?.appliedVersion ?? 0;
        const wanted = applied < item.version;
        if (wanted && !current.value && item.version > 1) {
          throw new Quarantine(
            "record_missing",
            `Amendment version ${item.version} of submission ${item.submissionId} has no ` +
              "record to update (its first version is quarantined or was discarded)",
            payload.formVersion,
          );
        }
        if (wanted && current.value?.deletedAt) {
          throw new Quarantine(
            "record_deleted",
            `The record of submission ${item.submissionId} was deleted; this is an amendment`,
            payload.formVersion,
          );
        }
        if (!wanted && !stale.value && !ack) return "duplicate";
        // The head's versionstamp covers owner edits and deletes; a stale quarantine row is
        // checked only when this commit deletes it.
        const checks = stale.value ? [current, stale] : [current];
        const ok = await this.#commitWrite(
          item,
          checks,
          current.value,
          wanted ? write : null,
          bytes,
          stale.value ? stale.value.parts : null,
          ack,
        );
        if (ok) return wanted ? "record" : "duplicate";
      }
      throw new Error(`Record of submission ${item.submissionId} kept changing`);
    } catch (err) {
      if (err instanceof RecordTooLargeError) {
        throw new Quarantine("too_large", err.message, payload.formVersion);
      }
      throw err;
    }
  }

  /**
   * Group-commits `write` (when given; over `current`) under `checks`, with the deletion of
   * this envelope's quarantine row of `staleParts` parts (none when null) and its ack (when
   * in-store), then announces the record's event. False when a check failed.
   */
  async #commitWrite(
    item: QueueItem,
    checks: Deno.AtomicCheck[],
    current: VaultRecordRow | null,
    write: RecordWrite | null,
    bytes: number,
    staleParts: number | null,
    ack: WritePart | null,
  ): Promise<boolean> {
    const qid = quarantineId(item);
    let event: StoredRecordEvent | null = null;
    const result = await this.committer.commit({
      lock: item.submissionId,
      build: (w) => {
        w.check(...checks);
        if (staleParts !== null) {
          w.delete(vaultKeys.quarantine(qid));
          deleteParts(w, vaultKeys.quarantineDataOf(qid), staleParts);
        }
        if (write) event = addRecordWrite(w, current, write, bytes);
        if (ack) addKvPart(w, ack);
      },
    });
    if (result.ok && event) announceRecordEvents(this.kv, [event]);
    return result.ok;
  }
}
