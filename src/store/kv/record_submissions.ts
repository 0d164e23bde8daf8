/**
 * Ingest's record writes on Deno KV: an envelope version becomes a record (or updates one),
 * group-committed with the parts the caller adds (its ack, the removal of a quarantine row).
 *
 * @module
 */
import type { RecordEventAnnouncer, StoredRecordEvent } from "../ports/record_events.ts";
import { checkRecordSize, type RecordWrite, type SubmissionOutcome } from "../ports/records.ts";
import type { GroupCommitter } from "./group_commit.ts";
import { vaultKeys } from "./keys.ts";
import {
  addRecordWrite,
  type CurrentRecord,
  valuesOf,
  type VaultRecordRow,
} from "./record_writes.ts";
import { addKvPart } from "./write_part.ts";
import type { WritePart } from "../ports/write_part.ts";

/** Tries of the careful path before giving up (the head kept changing). */
const TRIES = 10;

/**
 * Saves envelope version `write.appliedVersion` of submission `write.recordId`; see
 * `RecordsPort.applySubmission`.
 */
export async function applySubmission(
  kv: Deno.Kv,
  committer: GroupCommitter,
  announcer: RecordEventAnnouncer,
  write: RecordWrite,
  parts: WritePart[],
): Promise<SubmissionOutcome> {
  const bytes = checkRecordSize(write.values);
  const key = vaultKeys.record(write.formId, write.recordId);
  // The common case, a new submission: its record key is free (a deleted record leaves a
  // tombstone there). One check instead of a read keeps ~100 records per atomic write.
  const fresh = { key, versionstamp: null };
  const commit = (check: Deno.AtomicCheck, current: CurrentRecord | null, save: boolean) =>
    commitWrite(
      committer,
      announcer,
      write.recordId,
      check,
      current,
      save ? write : null,
      bytes,
      parts,
    );
  if (write.appliedVersion === 1 && await commit(fresh, null, true)) return "record";
  for (let attempt = 0; attempt < TRIES; attempt++) {
    const current = await kv.get<VaultRecordRow>(key);
    const wanted = (current.value?.appliedVersion ?? 0) < write.appliedVersion;
    if (wanted && !current.value && write.appliedVersion > 1) return "missing";
    if (wanted && current.value?.deletedAt) return "deleted";
    if (!wanted && parts.length === 0) return "duplicate";
    const previous = wanted && current.value
      ? { row: current.value, values: await valuesOf(kv, current.value) }
      : null;
    if (await commit(current, previous, wanted)) return wanted ? "record" : "duplicate";
  }
  throw new Error(`Record of submission ${write.recordId} kept changing`);
}

/**
 * Group-commits `write` (when given; over `current`) under `check`, with `parts`, locked by
 * `lock` (the submission: its writes never share a batch), then
 * announces the record's event. False when a check failed.
 */
async function commitWrite(
  committer: GroupCommitter,
  announcer: RecordEventAnnouncer,
  lock: string,
  check: Deno.AtomicCheck,
  current: CurrentRecord | null,
  write: RecordWrite | null,
  bytes: number,
  parts: WritePart[],
): Promise<boolean> {
  let event: StoredRecordEvent | null = null;
  const result = await committer.commit({
    lock,
    build: (w) => {
      w.check(check);
      if (write) event = addRecordWrite(w, current, write, bytes);
      for (const part of parts) addKvPart(w, part);
    },
  });
  if (result.ok && event) announcer.announce([event]);
  return result.ok;
}
