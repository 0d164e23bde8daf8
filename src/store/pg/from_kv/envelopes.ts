/**
 * `sealpost migrate-store`, the relay's envelopes: every submission head and every queued
 * envelope (with its ciphertext from the segment files) of a Deno KV store copied into the
 * PostgreSQL tables of the baseline migration, read through the KV envelope port (so the copy does
 * not depend on how KV lays its rows out). Queue positions are kept, and each recipient's
 * next position follows the last one copied.
 *
 * @module
 */
import { join } from "node:path";
import { KvEnvelopes } from "../../kv/envelopes.ts";
import { keys } from "../../kv/keys.ts";
import type { SubmissionHead } from "../../ports/envelopes.ts";
import { SegmentLog, SEGMENTS_DIR } from "../../kv/segments.ts";
import type { Sql } from "../db.ts";
import { headRow } from "../envelope_writes.ts";

/** Rows per insert statement. */
const ROWS_PER_INSERT = 500;

/**
 * Copies the submissions and queued envelopes of the KV store `kv` (its data dir `dataDir`,
 * where the segment files are) into the migrated PostgreSQL database `sql`. Idempotent and
 * resumable: rows already there are kept (`on conflict do nothing`). Answers how many rows of
 * each aggregate the KV store holds, all of them now in PostgreSQL (copied now or before).
 * The instance must not run meanwhile (the caller holds its data-dir lock).
 *
 * @example
 * ```ts
 * const counts = await copyEnvelopesFromKv(kv, "/var/lib/sealpost", sql);
 * // { submissions: 10000, envelopes: 12 }
 * ```
 */
export async function copyEnvelopesFromKv(
  kv: Deno.Kv,
  dataDir: string,
  sql: Sql,
): Promise<Record<string, number>> {
  const port = new KvEnvelopes(kv, await SegmentLog.open(join(dataDir, SEGMENTS_DIR)));
  try {
    return {
      submissions: await copySubmissions(kv, port, sql),
      envelopes: await copyQueues(kv, port, sql),
    };
  } finally {
    await port.close();
  }
}

async function copySubmissions(kv: Deno.Kv, port: KvEnvelopes, sql: Sql): Promise<number> {
  const prefix = keys.submission("").slice(0, -1);
  let batch: SubmissionHead[] = [];
  let count = 0;
  const flush = async () => {
    if (batch.length > 0) {
      await sql`insert into relay_submissions ${sql(batch.map(headRow))}
        on conflict (id) do nothing`;
    }
    count += batch.length;
    batch = [];
  };
  for await (const entry of kv.list({ prefix })) {
    const head = await port.getSubmission(idOf(entry.key.at(-1)!));
    if (head) batch.push(head);
    if (batch.length >= ROWS_PER_INSERT) await flush();
  }
  await flush();
  return count;
}

async function copyQueues(kv: Deno.Kv, port: KvEnvelopes, sql: Sql): Promise<number> {
  const fingerprints = new Set<string>();
  const prefix = keys.queueOf("").slice(0, -1);
  for await (const entry of kv.list({ prefix })) fingerprints.add(idOf(entry.key[1]));
  let count = 0;
  for (const fingerprint of fingerprints) {
    let after = 0;
    for (;;) {
      const page = await port.listQueue(fingerprint, after, ROWS_PER_INSERT);
      if (page.items.length === 0) break;
      const rows = page.items.map((item) => ({
        fingerprint,
        seq: item.seq,
        submission_id: item.submissionId,
        version: item.version,
        form_id: item.formId,
        recipient_pubkey: item.recipientPubkey,
        submitter_id: item.submitterId,
        received_at: new Date(item.receivedAt),
        ciphertext: item.ciphertext,
      }));
      const last = rows.at(-1)!.seq;
      await sql.begin(async (tx) => {
        await tx`insert into relay_queue ${tx(rows)} on conflict (fingerprint, seq) do nothing`;
        await tx`insert into relay_queue_heads (fingerprint, last_seq)
          values (${fingerprint}, ${last})
          on conflict (fingerprint) do update
          set last_seq = greatest(relay_queue_heads.last_seq, excluded.last_seq)`;
      });
      count += rows.length;
      if (page.nextCursor === null) break;
      after = page.nextCursor;
    }
  }
  return count;
}

/** The id a key part stands for: hex ids are stored as their bytes (`hexPart` of keys.ts). */
function idOf(part: Deno.KvKeyPart): string {
  return part instanceof Uint8Array ? part.toHex() : String(part);
}
