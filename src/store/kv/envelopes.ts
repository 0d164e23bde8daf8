/**
 * The envelope port on Deno KV: `submissions/{id}` (the head) and `queue/{fingerprint}/{seq}`
 * (one row per queued version, the ciphertext inline up to 60 KiB), written in one group
 * commit. A larger ciphertext goes to parts `chunks/{blobId}/{i}` written first under a marker
 * `staging/{blobId}` that the commit removes: a crash leaves only staging, swept on start.
 *
 * @module
 */
import type { GroupCommitter } from "../group_commit.ts";
import { keys, type QueueRow } from "../keys.ts";
import {
  deleteParts,
  deletePartsInSteps,
  PART_BYTES,
  partCount,
  readParts,
  writePartsInSteps,
} from "../parts.ts";
import { KV_LIMITS, KvWrite } from "../write.ts";
import { kvPart, type WritePart } from "../write_part.ts";
import type {
  AckEntry,
  EnvelopeLocation,
  EnvelopePort,
  NewEnvelope,
  QueuedEnvelope,
  QueuePage,
  QueueStats,
  SubmissionRow,
} from "../ports/envelopes.ts";
import { QueueContendedError } from "../ports/envelopes.ts";
import { KeyCounter } from "./key_count.ts";

/** Ciphertexts up to one part's size sit in their queue row (a KV value holds 64 KiB). */
const INLINE_BYTES = PART_BYTES;

/** Stop adding items to one page past this many ciphertext bytes (always at least one). */
const PAGE_BYTES = 16 * 1024 * 1024;

/** Queue rows per ack operation: one check each. */
const ACKS_PER_OP = KV_LIMITS.checks;

/** Mutations per ack operation, under Deno KV's limit. */
const MUTATIONS_PER_OP = 900;

/** Where a large ciphertext's parts lie. */
interface ChunkSet {
  blobId: string;
  chunks: number;
}

function locationOf(row: QueueRow): EnvelopeLocation | undefined {
  return row.blobId ? `${row.blobId}:${row.chunks ?? 0}` as EnvelopeLocation : undefined;
}

function chunkSetOf(location: EnvelopeLocation | undefined): ChunkSet | null {
  if (!location) return null;
  const [blobId, chunks] = location.split(":");
  return { blobId, chunks: Number(chunks) };
}

/**
 * Submissions and recipients' queues in Deno KV.
 *
 * @example
 * ```ts
 * const envelopes = new KvEnvelopes(kv, new GroupCommitter(kv), { storePath });
 * const page = await envelopes.listQueue(fingerprint, 0, 100);
 * ```
 */
export class KvEnvelopes implements EnvelopePort {
  readonly #counter: KeyCounter | null;

  /** `storePath`: the store's file, for counting queue rows without reading them. */
  constructor(
    private readonly kv: Deno.Kv,
    private readonly committer: GroupCommitter,
    options: { storePath?: string } = {},
  ) {
    this.#counter = options.storePath ? new KeyCounter(options.storePath) : null;
  }

  async getSubmission(submissionId: string): Promise<SubmissionRow | null> {
    return (await this.kv.get<SubmissionRow>(keys.submission(submissionId))).value;
  }

  async writeVersion(
    head: SubmissionRow,
    expectedVersion: number | null,
    envelope: NewEnvelope,
  ): Promise<boolean> {
    let versionstamp: string | null = null;
    if (expectedVersion !== null) {
      const current = await this.kv.get<SubmissionRow>(keys.submission(head.id));
      if (current.value?.version !== expectedVersion) return false;
      versionstamp = current.versionstamp;
    }
    const { ciphertext } = envelope;
    const blob = ciphertext.length <= INLINE_BYTES ? null : await this.#stage(ciphertext);
    const result = await this.committer.commit({
      lock: head.id,
      build: (w, seq) => {
        const queued: QueueRow = {
          submissionId: head.id,
          version: head.version,
          formId: envelope.formId,
          recipientPubkey: envelope.recipientPubkey,
          submitterId: envelope.submitterId,
          receivedAt: new Date().toISOString(),
          bytes: ciphertext.length,
          ...(blob ?? { ciphertext }),
        };
        w.check({ key: keys.submission(head.id), versionstamp })
          .set(keys.submission(head.id), head)
          .set(keys.queue(head.fingerprint, seq), queued);
        if (blob) w.delete(keys.staging(blob.blobId));
      },
    });
    if (!result.ok && blob) await this.#deleteChunks(blob, true);
    return result.ok;
  }

  async listQueue(fingerprint: string, after: number, limit: number): Promise<QueuePage> {
    const items: QueuedEnvelope[] = [];
    let bytes = 0;
    let more = false;
    const iter = this.kv.list<QueueRow>({
      start: keys.queue(fingerprint, after + 1),
      end: keys.queue(fingerprint, Number.MAX_SAFE_INTEGER),
    }, { limit: limit + 1 });
    for await (const entry of iter) {
      if (items.length >= limit || (items.length > 0 && bytes >= PAGE_BYTES)) {
        more = true;
        break;
      }
      const item = await this.#queued(entry.key[2] as number, entry.value);
      bytes += item.ciphertext.length;
      items.push(item);
    }
    const last = items.at(-1);
    return { items, nextCursor: more && last ? last.seq : null };
  }

  async getQueued(fingerprint: string, seq: number): Promise<QueuedEnvelope | null> {
    const row = (await this.kv.get<QueueRow>(keys.queue(fingerprint, seq))).value;
    return row ? await this.#queued(seq, row) : null;
  }

  async ack(fingerprint: string, seqs: number[]): Promise<number> {
    const unique = [...new Set(seqs)];
    let removed = 0;
    for (let start = 0; start < unique.length; start += ACKS_PER_OP) {
      removed += await this.#ackBatch(fingerprint, unique.slice(start, start + ACKS_PER_OP));
    }
    return removed;
  }

  ackPart(fingerprint: string, entry: AckEntry): WritePart {
    return kvPart((w) => addAck(w, fingerprint, entry));
  }

  async queueStats(fingerprint: string, cap: number): Promise<QueueStats> {
    const prefix = keys.queueOf(fingerprint);
    let depth: number;
    if (this.#counter) {
      depth = this.#counter.count(prefix, cap);
    } else {
      depth = (await Array.fromAsync(this.kv.list({ prefix }, { limit: cap }))).length;
    }
    let oldestReceivedAt: string | null = null;
    for await (const head of this.kv.list<QueueRow>({ prefix }, { limit: 1 })) {
      oldestReceivedAt = head.value.receivedAt;
    }
    return { depth, oldestReceivedAt };
  }

  async sweepStaging(): Promise<number> {
    let swept = 0;
    for await (const entry of this.kv.list<{ chunks: number }>({ prefix: keys.stagingAll() })) {
      await this.#deleteChunks({ blobId: String(entry.key[1]), chunks: entry.value.chunks }, true);
      swept++;
    }
    return swept;
  }

  /** Closes the store file's read-only counting connection. */
  close(): void {
    this.#counter?.close();
  }

  async #queued(seq: number, row: QueueRow): Promise<QueuedEnvelope> {
    const location = locationOf(row);
    return {
      seq,
      submissionId: row.submissionId,
      version: row.version,
      formId: row.formId,
      recipientPubkey: row.recipientPubkey,
      submitterId: row.submitterId,
      receivedAt: row.receivedAt,
      ciphertext: row.ciphertext ?? await this.#readChunks(row),
      ...(location ? { location } : {}),
    };
  }

  /** Writes the chunks of a large ciphertext ahead of its commit, marked as staging. */
  async #stage(bytes: Uint8Array): Promise<ChunkSet> {
    // Time-ordered ids keep chunk inserts at the end of the key space.
    const blobId = Date.now().toString(36).padStart(10, "0") +
      crypto.getRandomValues(new Uint8Array(8)).toHex();
    await this.kv.set(keys.staging(blobId), { chunks: partCount(bytes.length), at: Date.now() });
    const chunks = await writePartsInSteps(this.kv, keys.chunksOf(blobId), bytes);
    return { blobId, chunks };
  }

  /** Deletes a chunk set (and its staging marker). */
  async #deleteChunks(set: ChunkSet, staging: boolean): Promise<void> {
    await deletePartsInSteps(this.kv, keys.chunksOf(set.blobId), set.chunks);
    if (staging) await this.kv.delete(keys.staging(set.blobId));
  }

  async #readChunks(row: QueueRow): Promise<Uint8Array> {
    const out = await readParts(this.kv, keys.chunksOf(row.blobId!));
    if (out?.length !== row.bytes) {
      throw new Error(`Submission ${row.submissionId} v${row.version} is missing chunks`);
    }
    return out;
  }

  async #ackBatch(fingerprint: string, seqs: number[]): Promise<number> {
    let removed = 0;
    let todo = seqs;
    for (let attempt = 0; attempt < 5 && todo.length > 0; attempt++) {
      const rows: Deno.KvEntry<QueueRow>[] = [];
      for (let i = 0; i < todo.length; i += 10) {
        const read = await this.kv.getMany<QueueRow[]>(
          todo.slice(i, i + 10).map((s) => keys.queue(fingerprint, s)),
        );
        for (const entry of read) if (entry.value) rows.push(entry as Deno.KvEntry<QueueRow>);
      }
      // Checked, so that two acks of one entry at once count it once; a failed operation's
      // entries are read again (those another ack removed meanwhile are then skipped).
      const writes: { w: KvWrite; seqs: number[] }[] = [];
      for (const entry of rows) {
        const entryAck = { seq: entry.key[2] as number, location: locationOf(entry.value) };
        const one = addAck(new KvWrite().check(entry), fingerprint, entryAck);
        let last = writes.at(-1);
        if (!last || last.w.mutations + one.mutations > MUTATIONS_PER_OP) {
          writes.push(last = { w: new KvWrite(), seqs: [] });
        }
        addAck(last.w.check(entry), fingerprint, entryAck);
        last.seqs.push(entryAck.seq);
      }
      todo = [];
      for (const { w, seqs } of writes) {
        if (await w.commit(this.kv)) removed += seqs.length;
        else todo.push(...seqs);
      }
    }
    if (todo.length > 0) throw new QueueContendedError("The queue kept changing; ack again");
    return removed;
  }
}

/**
 * Adds the removal of queue entry `entry.seq` of `fingerprint` (and of its ciphertext's
 * chunks) to `w`, and returns `w`. Blind: acking an entry already gone changes nothing.
 */
function addAck(w: KvWrite, fingerprint: string, entry: AckEntry): KvWrite {
  w.delete(keys.queue(fingerprint, entry.seq));
  const set = chunkSetOf(entry.location);
  if (set) deleteParts(w, keys.chunksOf(set.blobId), set.chunks);
  return w;
}
