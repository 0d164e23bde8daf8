/**
 * The group commit of intake's writes on PostgreSQL (src/store/pg/envelopes.ts): a batch of
 * `writeVersion`s in one transaction, with multi-row statements: new heads inserted (`on
 * conflict do nothing`: idempotent on the submission id), amended heads updated where their
 * version is still the expected one, each recipient's head row advanced by the number of its
 * envelopes (its row lock orders positions by commit, across processes), the envelopes
 * inserted, and a NOTIFY per recipient, delivered at commit.
 *
 * @module
 */
import type { NewEnvelope, SubmissionHead } from "../ports/envelopes.ts";
import type { Tx } from "./db.ts";

/** The channel of the NOTIFY sent for each recipient with newly committed envelopes. */
export const QUEUED_CHANNEL = "sealpost_queued";

/** Ciphertext bytes one insert statement takes at most (unless one envelope is larger). */
const STATEMENT_BYTES = 16 * 1024 * 1024;

/** One `writeVersion` waiting for its batch. */
export interface VersionWrite {
  head: SubmissionHead;
  expectedVersion: number | null;
  envelope: NewEnvelope;
}

/**
 * Applies `writes` in `tx`; answers, per write, whether it applied (false: its head was not
 * at the expected version, nothing of it written). Writes of one submission apply in order.
 *
 * @example
 * ```ts
 * const applied = await sql.begin((tx) => writeVersions(tx, writes));
 * ```
 */
export async function writeVersions(tx: Tx, writes: VersionWrite[]): Promise<boolean[]> {
  const applied = new Array<boolean>(writes.length).fill(false);
  // Rounds of distinct submissions: a later write of one submission sees the earlier one.
  let todo = writes.map((_, i) => i);
  while (todo.length > 0) {
    const ids = new Set<string>();
    const round: number[] = [];
    const later: number[] = [];
    for (const i of todo) {
      const id = writes[i].head.id;
      (ids.has(id) ? later : round).push(i);
      ids.add(id);
    }
    for (const i of await applyHeads(tx, round.map((i) => writes[i]))) applied[round[i]] = true;
    todo = later;
  }
  const queued = writes.filter((_, i) => applied[i]);
  if (queued.length > 0) await queue(tx, queued);
  return applied;
}

/** Writes the heads of `writes` (distinct ids); answers the indexes of those applied. */
async function applyHeads(tx: Tx, writes: VersionWrite[]): Promise<number[]> {
  const byId = new Map(writes.map((w, i) => [w.head.id, i]));
  const fresh = writes.filter((w) => w.expectedVersion === null);
  const amended = writes.filter((w) => w.expectedVersion !== null);
  const done: number[] = [];
  if (fresh.length > 0) {
    // Sorted: every writer takes the row locks in one order (no deadlock between batches).
    const rows = fresh.map((w) => headRow(w.head)).sort((a, b) => compare(a.id, b.id));
    const inserted = await tx<{ id: string }[]>`
      insert into relay_submissions ${tx(rows)} on conflict (id) do nothing returning id`;
    for (const { id } of inserted) done.push(byId.get(id)!);
  }
  if (amended.length > 0) {
    const ids = amended.map((w) => w.head.id).sort(compare);
    await tx`select id from relay_submissions where id = any(${ids}::text[]) order by id
      for update`;
    const values = amended.map(({ head: h, expectedVersion }) => [
      h.id,
      h.formId,
      h.fingerprint,
      h.createdAt,
      h.version,
      h.digest,
      h.latestDigest,
      expectedVersion!,
    ]);
    const updated = await tx<{ id: string }[]>`
      update relay_submissions s set form_id = u.form_id, fingerprint = u.fingerprint,
        created_at = u.created_at::timestamptz, version = u.version::integer,
        digest = u.digest, latest_digest = u.latest_digest
      from (values ${tx(values)}) as u (id, form_id, fingerprint, created_at, version, digest,
        latest_digest, expected)
      where s.id = u.id and s.version = u.expected::integer
      returning s.id`;
    for (const { id } of updated) done.push(byId.get(id)!);
  }
  return done;
}

/** Queues the envelopes of applied `writes` at the next positions of their recipients. */
async function queue(tx: Tx, writes: VersionWrite[]) {
  const counts = new Map<string, number>();
  for (const w of writes) counts.set(w.head.fingerprint, (counts.get(w.head.fingerprint) ?? 0) + 1);
  const fingerprints = [...counts.keys()].sort(compare);
  const heads = await tx<{ fingerprint: string; last_seq: number }[]>`
    insert into relay_queue_heads (fingerprint, last_seq)
    select * from unnest(${fingerprints}::text[], ${
    fingerprints.map((f) => counts.get(f)!)
  }::int8[])
    order by 1
    on conflict (fingerprint) do update set last_seq = relay_queue_heads.last_seq + excluded.last_seq
    returning fingerprint, last_seq`;
  const next = new Map(heads.map((h) => [h.fingerprint, h.last_seq - counts.get(h.fingerprint)!]));
  const receivedAt = new Date();
  const rows = writes.map((w) => {
    const seq = next.get(w.head.fingerprint)! + 1;
    next.set(w.head.fingerprint, seq);
    return {
      fingerprint: w.head.fingerprint,
      seq,
      submission_id: w.head.id,
      version: w.head.version,
      form_id: w.envelope.formId,
      recipient_pubkey: w.envelope.recipientPubkey,
      submitter_id: w.envelope.submitterId,
      received_at: receivedAt,
      ciphertext: w.envelope.ciphertext,
    };
  });
  // Several statements when the ciphertexts are large: none carries much more than 16 MiB.
  for (let start = 0; start < rows.length;) {
    let end = start + 1;
    let bytes = rows[start].ciphertext.length;
    while (end < rows.length && bytes + rows[end].ciphertext.length <= STATEMENT_BYTES) {
      bytes += rows[end++].ciphertext.length;
    }
    await tx`insert into relay_queue ${tx(rows.slice(start, end))}`;
    start = end;
  }
  await tx`select pg_notify(${QUEUED_CHANNEL}, f) from unnest(${fingerprints}::text[]) f`;
}

/** The `relay_submissions` row of `head`. */
export function headRow(head: SubmissionHead) {
  return {
    id: head.id,
    form_id: head.formId,
    fingerprint: head.fingerprint,
    created_at: new Date(head.createdAt),
    version: head.version,
    digest: head.digest,
    latest_digest: head.latestDigest,
  };
}

/** Code-point order: the one order in which every writer takes its row locks. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
