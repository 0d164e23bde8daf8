/**
 * The envelope port on PostgreSQL: `relay_submissions` (heads), `relay_queue` (one row per
 * queued version, its sealed box in `bytea`) and `relay_queue_heads` (each recipient's last
 * position), created by the baseline migration. Every guarantee holds with several processes on one
 * database: intake is idempotent on the submission id's primary key, amendments update where
 * the version is still the expected one, positions follow commit order (the recipient's head
 * row is locked by the writing transaction), leases are taken with `for update skip locked`.
 * Writes are group-committed (src/store/pg/envelope_writes.ts); each commit NOTIFYs
 * `sealpost_queued` with the recipient's fingerprint, which {@linkcode PgEnvelopes.onQueued}
 * listens to.
 *
 * @module
 */
import type {
  AckEntry,
  EnvelopePort,
  NewEnvelope,
  QueuedEnvelope,
  QueueLease,
  QueuePage,
  QueueStats,
  SubmissionHead,
} from "../ports/envelopes.ts";
import { QueuedListeners } from "../ports/queued_listeners.ts";
import type { WritePart } from "../ports/write_part.ts";
import { Batcher } from "./batcher.ts";
import type { Sql } from "./db.ts";
import { QUEUED_CHANNEL, type VersionWrite, writeVersions } from "./envelope_writes.ts";
import { pgPart } from "./write_part.ts";

/** Stop adding items to one page past this many ciphertext bytes (always at least one). */
const PAGE_BYTES = 16 * 1024 * 1024;

/** Positions per ack statement. */
const ACKS_PER_STATEMENT = 5000;

/** A batch retried this often when the database aborts it (deadlock, serialization). */
const BATCH_ATTEMPTS = 4;

/** Options of {@link PgEnvelopes.open}. */
export interface PgEnvelopesOptions {
  /** Writes per group commit (default 256). */
  maxBatch?: number;
}

/**
 * Submissions and recipients' queues in PostgreSQL.
 *
 * @example
 * ```ts
 * const envelopes = await PgEnvelopes.open(sql);
 * const stop = envelopes.onQueued((fp) => console.log("new envelopes for", fp));
 * const page = await envelopes.listQueue(fingerprint, 0, 100, { holder: "w1", ms: 60_000 });
 * await envelopes.close();
 * ```
 */
export class PgEnvelopes implements EnvelopePort {
  readonly #batcher: Batcher<VersionWrite, boolean>;
  readonly #listeners = new QueuedListeners();
  #unlisten: () => Promise<void> = () => Promise.resolve();

  private constructor(private readonly sql: Sql, options: PgEnvelopesOptions) {
    this.#batcher = new Batcher(
      (writes) => retried(() => sql.begin((tx) => writeVersions(tx, writes))),
      { maxItems: options.maxBatch ?? 256 },
    );
  }

  /** The port on pool `sql` (migrated), LISTENing on `sealpost_queued` on its own connection. */
  static async open(sql: Sql, options: PgEnvelopesOptions = {}): Promise<PgEnvelopes> {
    const port = new PgEnvelopes(sql, options);
    const listening = await sql.listen(QUEUED_CHANNEL, (fp) => port.#listeners.emit(fp));
    port.#unlisten = () => listening.unlisten();
    return port;
  }

  async getSubmission(submissionId: string): Promise<SubmissionHead | null> {
    const [row] = await this.sql<HeadRecord[]>`
      select id, form_id, fingerprint, created_at, version, digest, latest_digest
      from relay_submissions where id = ${submissionId}`;
    return row ? headOf(row) : null;
  }

  writeVersion(
    head: SubmissionHead,
    expectedVersion: number | null,
    envelope: NewEnvelope,
  ): Promise<boolean> {
    return this.#batcher.submit({ head, expectedVersion, envelope });
  }

  async listQueue(
    fingerprint: string,
    after: number,
    limit: number,
    lease?: QueueLease,
  ): Promise<QueuePage> {
    const { seqs, more } = lease
      ? await this.sql.begin(async (tx) => {
        const sizes = await tx<Size[]>`
          select seq, octet_length(ciphertext) as bytes from relay_queue
          where fingerprint = ${fingerprint} and seq > ${after}
            and (lease_holder is null or lease_holder = ${lease.holder} or leased_until <= now())
          order by seq limit ${limit}
          for update skip locked`;
        // Only the rows taken are locked (an extra one would be skipped by the others).
        const page = cut(sizes, limit);
        if (page.seqs.length === 0) return page;
        await tx`update relay_queue set lease_holder = ${lease.holder},
            leased_until = now() + ${lease.ms} * interval '1 millisecond'
          where fingerprint = ${fingerprint} and seq = any(${page.seqs}::int8[])`;
        if (page.more || page.seqs.length < limit) return page;
        const [{ more }] = await tx<{ more: boolean }[]>`select exists (
          select 1 from relay_queue where fingerprint = ${fingerprint}
            and seq > ${page.seqs.at(-1)!}) as more`;
        return { seqs: page.seqs, more };
      })
      : cut(
        await this.sql<Size[]>`
          select seq, octet_length(ciphertext) as bytes from relay_queue
          where fingerprint = ${fingerprint} and seq > ${after}
          order by seq limit ${limit + 1}`,
        limit,
      );
    if (seqs.length === 0) return { items: [], nextCursor: null };
    const rows = await this.sql<QueueRecord[]>`
      select seq, submission_id, version, form_id, recipient_pubkey, submitter_id, received_at,
        ciphertext
      from relay_queue where fingerprint = ${fingerprint} and seq = any(${seqs}::int8[])
      order by seq`;
    const items = rows.map(queuedOf);
    return { items, nextCursor: more ? seqs.at(-1)! : null };
  }

  async ack(fingerprint: string, seqs: number[]): Promise<number> {
    const unique = [...new Set(seqs)].filter(Number.isSafeInteger);
    let removed = 0;
    for (let i = 0; i < unique.length; i += ACKS_PER_STATEMENT) {
      const chunk = unique.slice(i, i + ACKS_PER_STATEMENT);
      const gone = await this.sql`delete from relay_queue
        where fingerprint = ${fingerprint} and seq = any(${chunk}::int8[])`;
      removed += gone.count;
    }
    return removed;
  }

  ackPart(fingerprint: string, entry: AckEntry): WritePart {
    return pgPart(async (tx) => {
      await tx`delete from relay_queue where fingerprint = ${fingerprint} and seq = ${entry.seq}`;
    });
  }

  async queueStats(fingerprint: string, cap: number): Promise<QueueStats> {
    const [{ depth, oldest }] = await this.sql<{ depth: number; oldest: Date | null }[]>`
      select
        (select count(*) from (select 1 from relay_queue where fingerprint = ${fingerprint}
          limit ${cap}) q) as depth,
        (select received_at from relay_queue where fingerprint = ${fingerprint}
          order by seq limit 1) as oldest`;
    return { depth, oldestReceivedAt: oldest ? oldest.toISOString() : null };
  }

  onQueued(listener: (fingerprint: string) => void): () => void {
    return this.#listeners.add(listener);
  }

  /** Nothing to free: acked rows are deleted and PostgreSQL reclaims their space (vacuum). */
  sweep(): Promise<number> {
    return Promise.resolve(0);
  }

  /** Waits for the writes in flight and stops listening (the pool stays open). */
  async close(): Promise<void> {
    await this.#batcher.idle();
    await this.#unlisten();
  }
}

interface Size {
  seq: number;
  bytes: number;
}

interface HeadRecord {
  id: string;
  form_id: string;
  fingerprint: string;
  created_at: Date;
  version: number;
  digest: string;
  latest_digest: string;
}

interface QueueRecord {
  seq: number;
  submission_id: string;
  version: number;
  form_id: string;
  recipient_pubkey: string;
  submitter_id: string | null;
  received_at: Date;
  ciphertext: Uint8Array;
}

/** The positions of a page: up to `limit`, stopping past {@link PAGE_BYTES}. */
function cut(sizes: Size[], limit: number): { seqs: number[]; more: boolean } {
  const seqs: number[] = [];
  let bytes = 0;
  for (const size of sizes) {
    if (seqs.length >= limit || (seqs.length > 0 && bytes >= PAGE_BYTES)) {
      return { seqs, more: true };
    }
    seqs.push(size.seq);
    bytes += size.bytes;
  }
  return { seqs, more: false };
}

function headOf(row: HeadRecord): SubmissionHead {
  return {
    id: row.id,
    formId: row.form_id,
    fingerprint: row.fingerprint,
    createdAt: row.created_at.toISOString(),
    version: row.version,
    digest: row.digest,
    latestDigest: row.latest_digest,
  };
}

function queuedOf(row: QueueRecord): QueuedEnvelope {
  const bytes = row.ciphertext;
  return {
    seq: row.seq,
    submissionId: row.submission_id,
    version: row.version,
    formId: row.form_id,
    recipientPubkey: row.recipient_pubkey,
    submitterId: row.submitter_id,
    receivedAt: row.received_at.toISOString(),
    ciphertext: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
  };
}

/** Runs `run` again when PostgreSQL aborted it for a deadlock or a serialization failure. */
async function retried<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await run();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (attempt >= BATCH_ATTEMPTS || (code !== "40P01" && code !== "40001")) throw err;
    }
  }
}
