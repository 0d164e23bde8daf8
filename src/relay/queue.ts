/**
 * The per-recipient queue the owner's vault drains: list in arrival order, then ack.
 *
 * @module
 */
import { ApiError } from "../http/errors.ts";
import { type EnvelopeRow, keys, type QueueRow } from "../store/keys.ts";
import { readCiphertext } from "./submissions.ts";

/** One pending envelope version as the owner receives it. */
export interface QueueItem {
  /** Queue position; pass the last one as `after` to read on. */
  seq: number;
  submissionId: string;
  version: number;
  formId: string;
  recipientPubkey: string;
  submitterId: string | null;
  receivedAt: string;
  /** Standard base64 of the sealed box. */
  ciphertext: string;
}

/** Stop adding items to one page past this many ciphertext bytes (always at least one). */
const PAGE_BYTES = 16 * 1024 * 1024;

/**
 * Up to `limit` pending envelopes of the recipient `fp` after position `after`, in
 * arrival order, with the cursor to continue from.
 */
export async function listQueue(
  kv: Deno.Kv,
  fp: string,
  after: number,
  limit: number,
): Promise<{ items: QueueItem[]; nextCursor: string | null }> {
  const items: QueueItem[] = [];
  let bytes = 0;
  let more = false;
  const iter = kv.list<QueueRow>({
    start: keys.queue(fp, after + 1),
    end: keys.queue(fp, Number.MAX_SAFE_INTEGER),
  }, { limit: limit + 1 });
  for await (const entry of iter) {
    if (items.length >= limit || (items.length > 0 && bytes >= PAGE_BYTES)) {
      more = true;
      break;
    }
    const envelope = (await kv.get<EnvelopeRow>(
      keys.envelope(entry.value.submissionId, entry.value.version),
    )).value;
    if (!envelope) continue; // acked between the list and this read
    const ciphertext = await readCiphertext(kv, envelope);
    bytes += ciphertext.length;
    items.push({
      seq: envelope.seq,
      submissionId: envelope.submissionId,
      version: envelope.version,
      formId: envelope.formId,
      recipientPubkey: envelope.recipientPubkey,
      submitterId: envelope.submitterId,
      receivedAt: envelope.receivedAt,
      ciphertext: ciphertext.toBase64(),
    });
  }
  const last = items.at(-1);
  return { items, nextCursor: more && last ? String(last.seq) : null };
}

/** One acknowledgement: a submission, and optionally the newest version it covers. */
export interface Ack {
  submissionId: string;
  version?: number;
}

/**
 * Removes acknowledged envelope versions from the queue of `fp`. Acking is idempotent;
 * without `version` every pending version of the submission is acked.
 */
export async function ackQueue(kv: Deno.Kv, fp: string, acks: Ack[]): Promise<number> {
  let removed = 0;
  for (const ack of acks) {
    const head = await kv.get<{ fingerprint: string }>(keys.submission(ack.submissionId));
    if (!head.value) continue;
    for await (const entry of kv.list<EnvelopeRow>({ prefix: keys.envelopesOf(ack.submissionId) })) {
      const envelope = entry.value;
      if (ack.version !== undefined && envelope.version > ack.version) continue;
      const queued = await kv.get<QueueRow>(keys.queue(fp, envelope.seq));
      if (!queued.value) {
        if (head.value.fingerprint !== fp) {
          throw new ApiError(
            403,
            "forbidden",
            `Submission "${ack.submissionId}" is not in this queue`,
          );
        }
        continue;
      }
      const op = kv.atomic().check(entry).delete(keys.queue(fp, envelope.seq)).delete(entry.key);
      for (let i = 0; i < envelope.chunks; i++) op.delete(keys.chunk(envelope.blobId, i));
      if ((await op.commit()).ok) removed++;
    }
  }
  return removed;
}
