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
import { CHUNK_BYTES } from "../kv.ts";
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

/** Ciphertexts up to this size sit in their queue row (a KV value holds 64 KiB). */
const INLINE_BYTES = 60 * 1024;

/** Stop adding items to one page past this many ciphertext bytes (always at least one). */
const PAGE_BYTES = 16 * 1024 * 1024;

/** Queue rows per ack operation: at most 100 checks (Deno KV's limit). */
const ACKS_PER_OP = 100;

/** Mutations per atomic operation, under Deno KV's 1000. */
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
      checks: [{ key: keys.submission(head.id), versionstamp }],
      mutations: blob ? 3 : 2,
      bytes: ciphertext.length + 1024,
      apply: (op, seq) => {
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
        op.set(keys.submission(head.id), head).set(keys.queue(head.fingerprint, seq), queued);
        if (blob) op.delete(keys.staging(blob.blobId));
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
    const chunks = Math.ceil(bytes.length / CHUNK_BYTES);
    await this.kv.set(keys.staging(blobId), { chunks, at: Date.now() });
    const perOp = 10;
    for (let start = 0; start < chunks; start += perOp) {
      const op = this.kv.atomic();
      for (let i = start; i < Math.min(chunks, start + perOp); i++) {
        op.set(keys.chunk(blobId, i), bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES));
      }
      await op.commit();
    }
    return { blobId, chunks };
  }

  /** Deletes a chunk set (and its staging marker). */
  async #deleteChunks(set: ChunkSet, staging: boolean): Promise<void> {
    const perOp = 500;
    for (let start = 0; start < set.chunks; start += perOp) {
      const op = this.kv.atomic();
      for (let i = start; i < Math.min(set.chunks, start + perOp); i++) {
        op.delete(keys.chunk(set.blobId, i));
      }
      await op.commit();
    }
    if (staging) await this.kv.delete(keys.staging(set.blobId));
  }

  async #readChunks(row: QueueRow): Promise<Uint8Array> {
    const out = new Uint8Array(row.bytes);
    let offset = 0;
    for await (const entry of this.kv.list<Uint8Array>({ prefix: keys.chunksOf(row.blobId!) })) {
      out.set(entry.value, offset);
      offset += entry.value.length;
    }
    if (offset !== row.bytes) {
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
      const ops: { op: Deno.AtomicOperation; seqs: number[]; mutations: number }[] = [];
      for (const entry of rows) {
        const entryAck = { seq: entry.key[2] as number, location: locationOf(entry.value) };
        const mutations = ackMutations(entryAck);
        let last = ops.at(-1);
        if (!last || last.mutations + mutations > MUTATIONS_PER_OP) {
          ops.push(last = { op: this.kv.atomic(), seqs: [], mutations: 0 });
        }
        addAck(last.op.check(entry), fingerprint, entryAck);
        last.mutations += mutations;
        last.seqs.push(entryAck.seq);
      }
      todo = [];
      for (const { op, seqs } of ops) {
        if ((await op.commit()).ok) removed += seqs.length;
        else todo.push(...seqs);
      }
    }
    if (todo.length > 0) throw new QueueContendedError("The queue kept changing; ack again");
    return removed;
  }
}

/** The mutations {@link addAck} adds for `entry`. */
export function ackMutations(entry: AckEntry): number {
  return 1 + (chunkSetOf(entry.location)?.chunks ?? 0);
}

/**
 * Adds the removal of queue entry `entry.seq` of `fingerprint` (and of its ciphertext's
 * chunks) to `op`. Blind: acking an entry already gone changes nothing.
 */
export function addAck(op: Deno.AtomicOperation, fingerprint: string, entry: AckEntry): void {
  op.delete(keys.queue(fingerprint, entry.seq));
  const set = chunkSetOf(entry.location);
  for (let i = 0; i < (set?.chunks ?? 0); i++) op.delete(keys.chunk(set!.blobId, i));
}
