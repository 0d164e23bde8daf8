/**
 * The per-recipient queue the owner's vault drains: list in arrival order, then ack by
 * position.
 *
 * A queue row points at its ciphertext in the segment files; only a compaction repoints it
 * (src/relay/queue_segments.ts). Acking deletes it: in role `all` the vault adds that deletion
 * to the atomic operation that saves the record ({@link addAck}); over HTTP it acks after its
 * own commit ({@link ackQueue}).
 *
 * @module
 */
import { Conflict } from "../errors/index.ts";
import { keys, type QueueRow } from "../store/keys.ts";
import type { SegmentLog } from "../store/segments.ts";
import { KvWrite } from "../store/write.ts";

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
}

/** Stop adding items to one page past this many ciphertext bytes (always at least one). */
const PAGE_BYTES = 16 * 1024 * 1024;

/**
 * Up to `limit` pending envelopes of the recipient `fp` after position `after`, in
 * arrival order, with the cursor to continue from.
 */
export async function listQueue(
  kv: Deno.Kv,
  segments: SegmentLog,
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
    const read = await readQueued(kv, segments, entry);
    if (!read) continue;
    const { row, ciphertext } = read;
    bytes += ciphertext.length;
    items.push({
      seq: read.seq,
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

/**
 * The ciphertext of queue row `entry`; when its segment went meanwhile (a compaction moved it),
 * the row is read again. Null when the row is gone (acked meanwhile).
 */
async function readQueued(
  kv: Deno.Kv,
  segments: SegmentLog,
  entry: Deno.KvEntry<QueueRow>,
): Promise<{ seq: number; row: QueueRow; ciphertext: Uint8Array } | null> {
  const seq = entry.key[2] as number;
  try {
    return { seq, row: entry.value, ciphertext: await segments.read(entry.value.ref) };
  } catch (err) {
    const again = await kv.get<QueueRow>(entry.key);
    if (!again.value) return null;
    if (again.value.ref.s === entry.value.ref.s) throw err;
    return { seq, row: again.value, ciphertext: await segments.read(again.value.ref) };
  }
}

/** A queue entry as acking needs it: its position. */
export type AckEntry = Pick<QueueItem, "seq">;

/**
 * Adds the removal of queue entry `entry.seq` of `fp` to `w`. Blind: acking an entry already
 * gone changes nothing. (Its ciphertext goes with its segment, once no row refers to it.)
 */
export function addAck(w: KvWrite, fp: string, entry: AckEntry): void {
  w.delete(keys.queue(fp, entry.seq));
}

/** Rows per atomic operation: at most 100 checks (Deno KV's limit). */
const ACKS_PER_OP = 100;

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
    const w = new KvWrite();
    for (const entry of rows) addAck(w.check(entry), fp, { seq: entry.key[2] as number });
    todo = [];
    if (rows.length === 0) break;
    if (await w.commit(kv)) removed += rows.length;
    else todo = rows.map((entry) => entry.key[2] as number);
  }
  if (todo.length > 0) throw new Conflict("conflict", "The queue kept changing; ack again");
  return removed;
}
