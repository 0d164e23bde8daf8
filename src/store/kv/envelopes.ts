/**
 * The envelope port on Deno KV: `submissions/{id}` (the head) and `queue/{fingerprint}/{seq}`
 * (one small row per queued version), both in the compact encoding of
 * src/store/kv/envelope_rows.ts, and `queue_keys/{fingerprint}` (the recipient key, written
 * once, which queue rows then leave out) in the store; the ciphertexts in append-only segment
 * files (src/store/kv/segments.ts), written in arrival order and fsynced by the group commit just
 * before the commit of the rows that point into them. A crash in between leaves bytes no row
 * refers to, which go with their segment; segments no row refers to are deleted by
 * {@linkcode KvEnvelopes.sweep}, which also compacts old, mostly acked ones
 * (src/store/kv/queue_segments.ts).
 *
 * @module
 */
import { GroupCommitter } from "./group_commit.ts";
import { keys } from "./keys.ts";
import {
  type AckEntry,
  type EnvelopePort,
  type NewEnvelope,
  QueueContendedError,
  type QueuedEnvelope,
  type QueueLease,
  type QueuePage,
  type QueueStats,
  type SubmissionHead,
} from "../ports/envelopes.ts";
import type { SegmentLog } from "./segments.ts";
import { KV_LIMITS, KvWrite } from "./write.ts";
import { kvPart } from "./write_part.ts";
import type { WritePart } from "../ports/write_part.ts";
import {
  decodeHead,
  decodeQueued,
  encodeHead,
  encodeQueued,
  type StoredQueueRow,
} from "./envelope_rows.ts";
import { KeyCounter } from "./key_count.ts";
import { QueuedListeners } from "../ports/queued_listeners.ts";
import { QueueLeases } from "./queue_leases.ts";
import { sweepQueueSegments } from "./queue_segments.ts";

/** Stop adding items to one page past this many ciphertext bytes (always at least one). */
const PAGE_BYTES = 16 * 1024 * 1024;

/** Queue rows per ack operation: one check each. */
const ACKS_PER_OP = KV_LIMITS.checks;

/**
 * Submissions and recipients' queues in Deno KV, ciphertexts in `segments`.
 *
 * @example
 * ```ts
 * const segments = await SegmentLog.open(join(dataDir, SEGMENTS_DIR));
 * const envelopes = new KvEnvelopes(kv, segments, { storePath: join(dataDir, KV_FILE) });
 * const page = await envelopes.listQueue(fingerprint, 0, 100);
 * ```
 */
export class KvEnvelopes implements EnvelopePort {
  readonly #committer: GroupCommitter;
  readonly #counter: KeyCounter | null;
  readonly #leases = new QueueLeases();
  readonly #listeners = new QueuedListeners();
  /** Fingerprint → the recipient key stored for its queue (stored once, never changed). */
  readonly #queueKeys = new Map<string, Promise<string | null>>();

  /** `storePath`: the store's file, for counting queue rows without reading them. */
  constructor(
    private readonly kv: Deno.Kv,
    private readonly segments: SegmentLog,
    options: { storePath?: string } = {},
  ) {
    // One commit at a time: queue positions are then in commit order.
    this.#committer = new GroupCommitter(kv, undefined, 1, () => segments.flush());
    this.#counter = options.storePath ? new KeyCounter(options.storePath) : null;
  }

  async getSubmission(submissionId: string): Promise<SubmissionHead | null> {
    const { value } = await this.kv.get<Uint8Array>(keys.submission(submissionId));
    return value ? decodeHead(submissionId, value) : null;
  }

  async writeVersion(
    head: SubmissionHead,
    expectedVersion: number | null,
    envelope: NewEnvelope,
  ): Promise<boolean> {
    const headKey = keys.submission(head.id);
    let versionstamp: string | null = null;
    if (expectedVersion !== null) {
      const current = await this.kv.get<Uint8Array>(headKey);
      if (!current.value || decodeHead(head.id, current.value).version !== expectedVersion) {
        return false;
      }
      versionstamp = current.versionstamp;
    }
    const queueKey = await this.#queueKey(head.fingerprint, envelope.recipientPubkey);
    const ref = this.segments.append(envelope.ciphertext);
    try {
      const result = await this.#committer.commit({
        lock: head.id,
        build: (w, seq) => {
          const queued = encodeQueued({
            submissionId: head.id,
            version: head.version,
            formId: envelope.formId,
            recipientPubkey: envelope.recipientPubkey === queueKey
              ? null
              : envelope.recipientPubkey,
            submitterId: envelope.submitterId,
            receivedAt: new Date().toISOString(),
            ref,
          });
          w.check({ key: headKey, versionstamp })
            .set(headKey, encodeHead(head))
            .set(keys.queue(head.fingerprint, seq), queued);
        },
      });
      if (result.ok) this.#listeners.announce(head.fingerprint);
      return result.ok;
    } finally {
      this.segments.settle(ref);
    }
  }

  async listQueue(
    fingerprint: string,
    after: number,
    limit: number,
    lease?: QueueLease,
  ): Promise<QueuePage> {
    const items: QueuedEnvelope[] = [];
    let bytes = 0;
    let more = false;
    const iter = this.kv.list<Uint8Array>({
      start: keys.queue(fingerprint, after + 1),
      end: keys.queue(fingerprint, Number.MAX_SAFE_INTEGER),
    }, lease ? {} : { limit: limit + 1 }); // leased ones may be skipped: as far as needed
    // The page's rows first, then their ciphertexts in one read per run of the segment files.
    const rows: { entry: Deno.KvEntry<Uint8Array>; row: StoredQueueRow }[] = [];
    for await (const entry of iter) {
      if (rows.length >= limit || (rows.length > 0 && bytes >= PAGE_BYTES)) {
        more = true;
        break;
      }
      const seq = entry.key[2] as number;
      if (lease && !this.#leases.take(fingerprint, seq, lease)) continue;
      const row = decodeQueued(entry.value);
      bytes += row.ref.n;
      rows.push({ entry, row });
    }
    const read = await this.segments.readMany(rows.map(({ row }) => row.ref));
    for (const [i, { entry, row }] of rows.entries()) {
      const ciphertext = read[i];
      const item = await this.#queued(entry, fingerprint, row, ciphertext);
      if (!item) {
        this.#leases.release(fingerprint, [entry.key[2] as number]);
        continue;
      }
      items.push(item);
    }
    const last = items.at(-1);
    return { items, nextCursor: more && last ? last.seq : null };
  }

  async ack(fingerprint: string, seqs: number[]): Promise<number> {
    const unique = [...new Set(seqs)];
    let removed = 0;
    for (let start = 0; start < unique.length; start += ACKS_PER_OP) {
      removed += await this.#ackBatch(fingerprint, unique.slice(start, start + ACKS_PER_OP));
    }
    this.#leases.release(fingerprint, unique); // only now: the rows are gone
    return removed;
  }

  ackPart(fingerprint: string, entry: AckEntry): WritePart {
    return kvPart((w) => w.delete(keys.queue(fingerprint, entry.seq)));
  }

  async queueStats(fingerprint: string, cap: number): Promise<QueueStats> {
    const prefix = keys.queueOf(fingerprint);
    const depth = this.#counter
      ? this.#counter.count(prefix, cap)
      : (await Array.fromAsync(this.kv.list({ prefix }, { limit: cap }))).length;
    let oldestReceivedAt: string | null = null;
    for await (const head of this.kv.list<Uint8Array>({ prefix }, { limit: 1 })) {
      oldestReceivedAt = decodeQueued(head.value).receivedAt;
    }
    return { depth, oldestReceivedAt };
  }

  onQueued(listener: (fingerprint: string) => void): () => void {
    return this.#listeners.add(listener);
  }

  sweep(): Promise<number> {
    return sweepQueueSegments(this.kv, this.segments);
  }

  /** Waits for the commits in flight; closes the segment files and the counting connection. */
  async close(): Promise<void> {
    await this.#committer.idle();
    this.#counter?.close();
    await this.segments.close();
  }

  /**
   * The recipient key stored for `fingerprint`'s queue; with `pubkey`, that key is stored first
   * when none is (its own durable write, before any row that leaves it out). Null when none is
   * stored and none given.
   */
  #queueKey(fingerprint: string, pubkey?: string): Promise<string | null> {
    let known = this.#queueKeys.get(fingerprint);
    if (!known) {
      known = this.#storeQueueKey(fingerprint, pubkey);
      this.#queueKeys.set(fingerprint, known);
      // Not remembered when unknown or failed: the next call asks the store again.
      const forget = () => this.#queueKeys.delete(fingerprint);
      known.then((key) => key === null && forget(), forget);
    }
    return known;
  }

  async #storeQueueKey(fingerprint: string, pubkey?: string): Promise<string | null> {
    const key = keys.queueKey(fingerprint);
    for (let attempt = 0; attempt < 3; attempt++) {
      const stored = await this.kv.get<string>(key);
      if (stored.value !== null || pubkey === undefined) return stored.value;
      if ((await this.kv.atomic().check(stored).set(key, pubkey).commit()).ok) return pubkey;
    }
    throw new QueueContendedError("The queue's recipient key kept changing");
  }

  /**
   * The queued envelope of `entry` (whose decoded `row` and read `bytes` are given). When the
   * read failed, the row is read again: gone (acked meanwhile) is null, moved to another
   * segment (a sweep compacted it) is read there.
   */
  async #queued(
    entry: Deno.KvEntry<Uint8Array>,
    fingerprint: string,
    row: StoredQueueRow,
    bytes: Uint8Array | Error,
  ): Promise<QueuedEnvelope | null> {
    let ciphertext: Uint8Array;
    if (bytes instanceof Error) {
      const again = await this.kv.get<Uint8Array>(entry.key);
      if (!again.value) return null;
      const moved = decodeQueued(again.value);
      if (moved.ref.s === row.ref.s) throw bytes;
      row = moved;
      ciphertext = await this.segments.read(row.ref);
    } else ciphertext = bytes;
    const recipientPubkey = row.recipientPubkey ?? await this.#queueKey(fingerprint);
    if (recipientPubkey === null) {
      throw new Error(`The recipient key of queue ${fingerprint} is missing: the store is damaged`);
    }
    return {
      seq: entry.key[2] as number,
      submissionId: row.submissionId,
      version: row.version,
      formId: row.formId,
      recipientPubkey,
      submitterId: row.submitterId,
      receivedAt: row.receivedAt,
      ciphertext,
    };
  }

  async #ackBatch(fingerprint: string, seqs: number[]): Promise<number> {
    let todo = seqs;
    for (let attempt = 0; attempt < 5; attempt++) {
      const rows: Deno.KvEntry<Uint8Array>[] = [];
      for (let i = 0; i < todo.length; i += 10) {
        const read = await this.kv.getMany<Uint8Array[]>(
          todo.slice(i, i + 10).map((s) => keys.queue(fingerprint, s)),
        );
        for (const entry of read) if (entry.value) rows.push(entry as Deno.KvEntry<Uint8Array>);
      }
      if (rows.length === 0) return 0;
      // Checked, so that two acks of one entry at once count it once; when the write fails,
      // the rows are read again (those another ack removed meanwhile are then skipped).
      const w = new KvWrite();
      for (const entry of rows) w.check(entry).delete(entry.key);
      if (await w.commit(this.kv)) return rows.length;
      todo = rows.map((entry) => entry.key[2] as number);
    }
    throw new QueueContendedError("The queue kept changing; ack again");
  }
}
