/**
 * The queue's side of the segment files: which segments queue rows still refer to, the sweep
 * that deletes the others, and the compaction that moves the few live ciphertexts out of an old
 * segment so it can go.
 *
 * Rows of each recipient's queue refer to segments in sequence order, so the oldest segment
 * any row refers to is the smallest among each queue's first row: one short read per queue.
 *
 * @module
 */
import type { SegmentLog, SegmentRef } from "./segments.ts";
import { KvWrite } from "./write.ts";
import { decodeQueued, encodeQueued } from "./envelope_rows.ts";

/** A queue row with its segment reference read. */
type Row = Deno.KvEntry<Uint8Array> & { ref: SegmentRef };

const withRef = (entry: Deno.KvEntry<Uint8Array>): Row => ({
  ...entry,
  ref: decodeQueued(entry.value).ref,
});

/** Just after every key of the queue whose key part (a fingerprint) is `part`. */
function pastQueue(part: Deno.KvKeyPart): Deno.KvKey {
  return ["queue", part instanceof Uint8Array ? Uint8Array.of(...part, 0) : `${String(part)}\0`];
}

/** The first row of every recipient's queue. */
async function* queueHeads(kv: Deno.Kv): AsyncGenerator<Row> {
  let start: Deno.KvKey | null = null;
  for (let i = 0; i < 1_000_000; i++) {
    const selector: Deno.KvListSelector = start
      ? { prefix: ["queue"], start }
      : { prefix: ["queue"] };
    const iter: Deno.KvListIterator<Uint8Array> = kv.list<Uint8Array>(selector, { limit: 1 });
    const next: IteratorResult<Deno.KvEntry<Uint8Array>> = await iter.next();
    if (next.done) return;
    yield withRef(next.value);
    start = pastQueue(next.value.key[1]);
  }
}

/** The oldest segment a queue row refers to (Infinity when every queue is empty). */
export async function oldestReferencedSegment(kv: Deno.Kv): Promise<number> {
  let oldest = Infinity;
  for await (const head of queueHeads(kv)) oldest = Math.min(oldest, head.ref.s);
  return oldest;
}

/** Rows of every queue that refer to segment `id` (a prefix of each queue). */
async function rowsIn(kv: Deno.Kv, id: number): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const head of queueHeads(kv)) {
    if (head.ref.s !== id) continue;
    for await (const entry of kv.list<Uint8Array>({ prefix: head.key.slice(0, 2) })) {
      const row = withRef(entry);
      if (row.ref.s !== id) break;
      rows.push(row);
    }
  }
  return rows;
}

/** Options of {@link sweepQueueSegments}. */
export interface CompactOptions {
  /** A sealed segment whose live bytes are at most this share of it is compacted (0.5). */
  maxLiveShare?: number;
  /** Segments compacted at most per sweep (4). */
  maxSegments?: number;
}

/**
 * Deletes the segments no queue row refers to, then compacts old ones: while the oldest
 * referenced segment is sealed and mostly garbage (acked ciphertexts), its live ciphertexts are
 * copied to the current segment and their rows repointed, so it goes too. Returns the number
 * of segments deleted.
 *
 * @example
 * ```ts
 * setInterval(() => sweepQueueSegments(kv, segments), 60_000);
 * ```
 */
export async function sweepQueueSegments(
  kv: Deno.Kv,
  segments: SegmentLog,
  options: CompactOptions = {},
): Promise<number> {
  const maxLiveShare = options.maxLiveShare ?? 0.5;
  let removed = await segments.sweep(() => oldestReferencedSegment(kv));
  for (let pass = 0; pass < (options.maxSegments ?? 4); pass++) {
    const oldest = await oldestReferencedSegment(kv);
    if (!(oldest < segments.current)) break;
    const rows = await rowsIn(kv, oldest);
    const live = rows.reduce((sum, row) => sum + row.ref.n, 0);
    if (live > maxLiveShare * await segments.size(oldest)) break;
    await moveRows(kv, segments, rows);
    removed += await segments.sweep(() => oldestReferencedSegment(kv));
  }
  return removed;
}

/** Copies the ciphertexts of `rows` to the current segment and repoints each row (checked). */
async function moveRows(kv: Deno.Kv, segments: SegmentLog, rows: Row[]) {
  for (let i = 0; i < rows.length; i += 100) {
    const batch = rows.slice(i, i + 100);
    const refs: SegmentRef[] = [];
    try {
      const w = new KvWrite();
      for (const entry of batch) {
        const ref = segments.append(await segments.read(entry.ref));
        refs.push(ref);
        // An ack meanwhile fails the check: then nothing moves and the next sweep sees.
        w.check(entry).set(entry.key, encodeQueued({ ...decodeQueued(entry.value), ref }));
      }
      await segments.flush();
      await w.commit(kv);
    } finally {
      for (const ref of refs) segments.settle(ref);
    }
  }
}
