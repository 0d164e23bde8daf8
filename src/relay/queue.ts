/**
 * The per-recipient queue the owner's vault drains: list in arrival order, then ack.
 *
 * @module
 */
import { ApiError } from "../http/errors.ts";
import { keys, type QueueRow, type SubmissionRow } from "../store/keys.ts";
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
    const row = entry.value;
    const ciphertext = await readCiphertext(kv, row);
    bytes += ciphertext.length;
    items.push({
      seq: entry.key[2] as number,
      submissionId: row.submissionId,
      version: row.version,
      formId: row.formId,
      recipientPubkey: row.recipientPubkey,
      submitterId: row.submitterId,
      receivedAt: row.receivedAt,
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
  for (const ack of acks) removed += await ackOne(kv, fp, ack);
  return removed;
}

async function ackOne(kv: Deno.Kv, fp: string, ack: Ack): Promise<number> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const head = await kv.get<SubmissionRow>(keys.submission(ack.submissionId));
    if (!head.value) return 0;
    const covered = (p: SubmissionRow["pending"][number]) =>
      p.fingerprint === fp && (ack.version === undefined || p.version <= ack.version);
    const done = head.value.pending.filter(covered);
    if (done.length === 0) {
      if (head.value.fingerprint !== fp && !head.value.pending.some((p) => p.fingerprint === fp)) {
        throw new ApiError(
          403,
          "forbidden",
          `Submission "${ack.submissionId}" is not in this queue`,
        );
      }
      return 0;
    }
    const op = kv.atomic()
      .check(head)
      .set(head.key, { ...head.value, pending: head.value.pending.filter((p) => !covered(p)) });
    for (const p of done) {
      op.delete(keys.queue(fp, p.seq));
      for (let i = 0; i < (p.chunks ?? 0); i++) op.delete(keys.chunk(p.blobId!, i));
    }
    if ((await op.commit()).ok) return done.length;
  }
  throw new ApiError(409, "conflict", `Submission "${ack.submissionId}" kept changing; ack again`);
}
