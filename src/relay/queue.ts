/**
 * The per-recipient queue the owner's vault drains: list in arrival order, then ack.
 *
 * @module
 */
import { ApiError } from "../http/errors.ts";
import { keys, type PendingVersion, type QueueRow, type SubmissionRow } from "../store/keys.ts";
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

/** Per atomic operation: at most 100 checks (Deno KV's limit), well under 1000 mutations. */
const ACKS_PER_OP = 100;
const MUTATIONS_PER_OP = 900;

/**
 * Removes acknowledged envelope versions from the queue of `fp`. Acking is idempotent;
 * without `version` every pending version of the submission is acked. The acks of a page
 * are committed together (one atomic operation per 100 submissions); if one of them
 * changed meanwhile, each is retried on its own.
 */
export async function ackQueue(kv: Deno.Kv, fp: string, acks: Ack[]): Promise<number> {
  let removed = 0;
  for (let start = 0; start < acks.length; start += ACKS_PER_OP) {
    removed += await ackBatch(kv, fp, acks.slice(start, start + ACKS_PER_OP));
  }
  return removed;
}

/** What acking one submission takes: its head as read, and the versions it removes. */
interface AckPlan {
  head: Deno.KvEntry<SubmissionRow>;
  done: PendingVersion[];
  keep: PendingVersion[];
}

function plan(fp: string, ack: Ack, head: Deno.KvEntryMaybe<SubmissionRow>): AckPlan | null {
  if (!head.value) return null;
  const covered = (p: PendingVersion) =>
    p.fingerprint === fp && (ack.version === undefined || p.version <= ack.version);
  const done = head.value.pending.filter(covered);
  if (done.length === 0) {
    if (head.value.fingerprint !== fp && !head.value.pending.some((p) => p.fingerprint === fp)) {
      throw new ApiError(403, "forbidden", `Submission "${ack.submissionId}" is not in this queue`);
    }
    return null;
  }
  return {
    head: head as Deno.KvEntry<SubmissionRow>,
    done,
    keep: head.value.pending.filter((p) => !covered(p)),
  };
}

function addAck(op: Deno.AtomicOperation, fp: string, p: AckPlan): number {
  op.check(p.head).set(p.head.key, { ...p.head.value, pending: p.keep });
  let mutations = 1;
  for (const v of p.done) {
    op.delete(keys.queue(fp, v.seq));
    for (let i = 0; i < (v.chunks ?? 0); i++) op.delete(keys.chunk(v.blobId!, i));
    mutations += 1 + (v.chunks ?? 0);
  }
  return mutations;
}

async function ackBatch(kv: Deno.Kv, fp: string, acks: Ack[]): Promise<number> {
  const heads: Deno.KvEntryMaybe<SubmissionRow>[] = [];
  for (let i = 0; i < acks.length; i += 10) {
    heads.push(
      ...await kv.getMany<SubmissionRow[]>(
        acks.slice(i, i + 10).map((a) => keys.submission(a.submissionId)),
      ),
    );
  }
  const plans = acks.map((ack, i) => plan(fp, ack, heads[i]));
  const work = plans.filter((p): p is AckPlan => p !== null);
  if (work.length === 0) return 0;
  const op = kv.atomic();
  let mutations = 0;
  for (const p of work) mutations += addAck(op, fp, p);
  if (mutations <= MUTATIONS_PER_OP && (await op.commit()).ok) {
    return work.reduce((n, p) => n + p.done.length, 0);
  }
  // Too large for one operation, or a submission changed meanwhile: one at a time.
  let removed = 0;
  for (const [i, ack] of acks.entries()) if (plans[i]) removed += await ackOne(kv, fp, ack);
  return removed;
}

async function ackOne(kv: Deno.Kv, fp: string, ack: Ack): Promise<number> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const p = plan(fp, ack, await kv.get<SubmissionRow>(keys.submission(ack.submissionId)));
    if (!p) return 0;
    const op = kv.atomic();
    addAck(op, fp, p);
    if ((await op.commit()).ok) return p.done.length;
  }
  throw new ApiError(409, "conflict", `Submission "${ack.submissionId}" kept changing; ack again`);
}
