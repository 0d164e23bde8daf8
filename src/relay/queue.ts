/**
 * The per-recipient queue the owner's vault drains: list in arrival order, then ack by
 * position.
 *
 * A queue row never changes once written; acking deletes it (and the chunks of a ciphertext
 * too large for the row). In role `all` the vault adds that deletion to the atomic operation
 * that saves the record ({@link addAck}); over HTTP it acks after its own commit
 * ({@link ackQueue}).
 *
 * @module
 */
import { ApiError } from "../http/errors.ts";
import { keys, type QueueRow } from "../store/keys.ts";
import { deleteParts } from "../store/parts.ts";
import { KvWrite } from "../store/write.ts";
import { readCiphertext } from "./submissions.ts";

/** Where the ciphertext of a queue row too large to sit in it lies. */
export interface ChunkSet {
  blobId: string;
  chunks: number;
}

/** One pending envelope version as the owner receives it. */
export interface QueueItem {
  /** Queue position; pass the last one as `after` to read on, and ack by it. */
  seq: number;
  submissionId: string;
  version: number;
  formId: string;
  recipientPubkey: string;
  submitterId: string | null;
  receivedAt: string;
  /** Standard base64 of the sealed box. */
  ciphertext: string;
  /** The chunks of a large ciphertext, for {@link addAck} in-process (not in the HTTP API). */
  chunkSet?: ChunkSet;
}

/** The chunk set of `row`'s ciphertext, when it is too large to sit in the row. */
function chunkSetOf(row: QueueRow): ChunkSet | undefined {
  return row.blobId ? { blobId: row.blobId, chunks: row.chunks ?? 0 } : undefined;
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
    const chunkSet = chunkSetOf(row);
    items.push({
      seq: entry.key[2] as number,
      submissionId: row.submissionId,
      version: row.version,
      formId: row.formId,
      recipientPubkey: row.recipientPubkey,
      submitterId: row.submitterId,
      receivedAt: row.receivedAt,
      ciphertext: ciphertext.toBase64(),
      ...(chunkSet ? { chunkSet } : {}),
    });
  }
  const last = items.at(-1);
  return { items, nextCursor: more && last ? String(last.seq) : null };
}

/** A queue entry as acking needs it: its position and its ciphertext's chunks. */
export type AckEntry = Pick<QueueItem, "seq" | "chunkSet">;

/**
 * Adds the removal of queue entry `entry.seq` of `fp` (and of its ciphertext's chunks) to
 * `w`. Blind: acking an entry already gone changes nothing.
 */
export function addAck(w: KvWrite, fp: string, entry: AckEntry): void {
  w.delete(keys.queue(fp, entry.seq));
  const set = entry.chunkSet;
  if (set) deleteParts(w, keys.chunksOf(set.blobId), set.chunks);
}

/** Rows per atomic operation: at most 100 checks (Deno KV's limit). */
const ACKS_PER_OP = 100;
/** Mutations per atomic operation, under Deno KV's 1000. */
const MUTATIONS_PER_OP = 900;

/**
 * Removes the entries at positions `seqs` from the queue of `fp`; returns how many were
 * there. Idempotent: positions already acked (or never used) are skipped.
 */
export async function ackQueue(kv: Deno.Kv, fp: string, seqs: number[]): Promise<number> {
  const unique = [...new Set(seqs)];
  let removed = 0;
  for (let start = 0; start < unique.length; start += ACKS_PER_OP) {
    removed += await ackBatch(kv, fp, unique.slice(start, start + ACKS_PER_OP));
  }
  return removed;
}

async function ackBatch(kv: Deno.Kv, fp: string, seqs: number[]): Promise<number> {
  let removed = 0;
  let todo = seqs;
  for (let attempt = 0; attempt < 5 && todo.length > 0; attempt++) {
    const rows: Deno.KvEntry<QueueRow>[] = [];
    for (let i = 0; i < todo.length; i += 10) {
      const read = await kv.getMany<QueueRow[]>(
        todo.slice(i, i + 10).map((s) => keys.queue(fp, s)),
      );
      for (const entry of read) if (entry.value) rows.push(entry as Deno.KvEntry<QueueRow>);
    }
    // Checked, so that two acks of one entry at once count it once; a failed operation's
    // entries are read again (those another ack removed meanwhile are then skipped).
    const writes: { w: KvWrite; seqs: number[] }[] = [];
    for (const entry of rows) {
      const seq = entry.key[2] as number;
      const one = new KvWrite();
      addAck(one.check(entry), fp, { seq, chunkSet: chunkSetOf(entry.value) });
      let last = writes.at(-1);
      if (!last || last.w.mutations + one.mutations > MUTATIONS_PER_OP) {
        writes.push(last = { w: new KvWrite(), seqs: [] });
      }
      addAck(last.w.check(entry), fp, { seq, chunkSet: chunkSetOf(entry.value) });
      last.seqs.push(seq);
    }
    todo = [];
    for (const { w, seqs } of writes) {
      if (await w.commit(kv)) removed += seqs.length;
      else todo.push(...seqs);
    }
  }
  if (todo.length > 0) throw new ApiError(409, "conflict", "The queue kept changing; ack again");
  return removed;
}
