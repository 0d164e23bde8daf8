/**
 * What the benchmarks that fill a store directly write per envelope: intake's two rows of a new
 * submission (version 1 of form `bench`, the queue's recipient key left out, no submitter), in
 * the encoding of src/store/kv/envelope_rows.ts, with a fresh digest.
 *
 * @module
 */
import { encodeHead, encodeQueued } from "../src/store/kv/envelope_rows.ts";
import type { SegmentRef } from "../src/store/kv/segments.ts";

/** The head (`keys.submission(id)`) and queue row (`keys.queue(fingerprint, seq)`) values. */
export function intakeRows(
  id: string,
  fingerprint: string,
  ref: SegmentRef,
): { head: Uint8Array; queued: Uint8Array } {
  const now = new Date().toISOString();
  const digest = crypto.getRandomValues(new Uint8Array(32)).toHex();
  const head = encodeHead({
    id,
    formId: "bench",
    fingerprint,
    createdAt: now,
    version: 1,
    digest,
    latestDigest: digest,
  });
  const queued = encodeQueued({
    submissionId: id,
    version: 1,
    formId: "bench",
    recipientPubkey: null,
    submitterId: null,
    receivedAt: now,
    ref,
  });
  return { head, queued };
}
