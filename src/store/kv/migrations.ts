/**
 * The store's migrations, oldest first (run by `migrateStore` in schema.ts). Migration N takes
 * a store from version N-1 to N; the layout each one leaves is the one `keys.ts` describes, and
 * nothing outside this module reads the layouts they replace.
 *
 * @module
 */
import { encodeHead, encodeQueued, type QueueRow } from "./envelope_rows.ts";
import { queueCiphertextsInSegments } from "./migration_segments.ts";
import type { Migration } from "./schema.ts";
import { blobKeys, keys, vaultKeys, webhookKeys } from "./keys.ts";
import type { BlobMeta } from "../ports/blob_meta.ts";
import type { VaultRecordRow } from "./record_writes.ts";
import type { WebhookDeliveryRef } from "./webhook_deliveries.ts";
import type { SubmissionHead } from "../ports/envelopes.ts";
import type { FormHead } from "../ports/forms.ts";
import type { WebhookAttempt, WebhookConfig, WebhookDelivery } from "../ports/webhooks.ts";

/** Rewrites each entry under `prefix` that `change` returns a new value for (others stay). */
async function rewrite<T>(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  change: (value: T, key: Deno.KvKey) => Promise<((op: Deno.AtomicOperation) => void) | null>,
): Promise<void> {
  for await (const entry of kv.list<T>({ prefix })) {
    const write = await change(entry.value, entry.key);
    if (!write) continue;
    const op = kv.atomic().check(entry);
    write(op);
    // A concurrent change cannot happen (one process owns the store and migrates before serving).
    if (!(await op.commit()).ok) throw new Error(`Migrating ${JSON.stringify(entry.key)} failed`);
  }
}

/** A delivery row as version 0 wrote it: the body of a small delivery inline. */
type DeliveryRowV0 = WebhookDelivery & { body?: Uint8Array | null };

/**
 * Version 1: webhook delivery bodies up to 16 KiB move from the delivery row to its ref (a ref
 * written as a bare webhook id becomes `{webhookId, body}`), configurations get an explicit
 * `concurrency` (null: the instance default), and submission heads drop the `pending` list
 * that acknowledgements by position replaced.
 */
const webhookBodiesInRefs: Migration = {
  to: 1,
  description: "webhook bodies in delivery refs, explicit webhook concurrency, no pending lists",
  async run(kv) {
    await rewrite<DeliveryRowV0>(kv, ["webhooks", "deliveries"], async (row, key) => {
      const refKey = webhookKeys.deliveryWebhook(row.id);
      const ref = await kv.get<WebhookDeliveryRef | string>(refKey);
      const inline = row.body ?? null;
      if (!("body" in row) && typeof ref.value !== "string") return null;
      const { body: _, ...rest } = row;
      const next: WebhookDeliveryRef = {
        webhookId: row.webhookId,
        body: inline ?? (typeof ref.value === "object" ? ref.value?.body ?? null : null),
      };
      return (op) => op.check(ref).set(key, rest).set(refKey, next);
    });
    await rewrite<WebhookConfig>(kv, ["webhooks", "configs"], (row, key) =>
      Promise.resolve(
        row.concurrency === undefined ? (op) => op.set(key, { ...row, concurrency: null }) : null,
      ));
    await rewrite<SubmissionHead & { pending?: unknown }>(kv, ["submissions"], (row, key) => {
      if (!("pending" in row)) return Promise.resolve(null);
      const { pending: _, ...rest } = row;
      return Promise.resolve((op) => op.set(key, rest));
    });
  },
};

/**
 * Version 2: each form's records by receipt time, its live record count and its records per
 * day (src/store/kv/record_writes.ts), built for the records saved before inserts and deletes
 * kept them; counts are set from the finished index, so running it again changes nothing.
 * And blob claims counted per claimant: a blob claimed before (one `claimedAt`, no count)
 * gets one claim by `owner` (the claimant of the owner API's default), so it stays kept;
 * an unclaimed one a count of 0. Forms get an explicit `retentionDays: null` (kept).
 */
const recordTimeIndex: Migration = {
  to: 2,
  description:
    "records by receipt time, record counts, records per day; blob claim counts; form retention",
  async run(kv) {
    await rewrite<Omit<FormHead, "retentionDays"> & { retentionDays?: number | null }>(
      kv,
      vaultKeys.forms(),
      (row, key) =>
        Promise.resolve(
          row.retentionDays === undefined
            ? (op) => op.set(key, { ...row, retentionDays: null })
            : null,
        ),
    );
    await rewrite<Omit<BlobMeta, "claims"> & { claims?: number }>(
      kv,
      ["blobs", "meta"],
      (row, key) => {
        if (row.claims !== undefined) return Promise.resolve(null);
        const claims = row.claimedAt === null ? 0 : 1;
        return Promise.resolve((op) => {
          op.set(key, { ...row, claims });
          if (claims) op.set(blobKeys.claim(row.userId, row.hash, "owner"), true);
        });
      },
    );
    for await (const form of kv.list<{ formId: string }>({ prefix: vaultKeys.forms() })) {
      const { formId } = form.value;
      let op = kv.atomic();
      let pending = 0;
      const records = kv.list<VaultRecordRow>({ prefix: vaultKeys.records(formId) });
      for await (const { value: row } of records) {
        if (row.deletedAt) continue;
        op.set(vaultKeys.recordByTime(formId, row.createdAt, row.recordId), true);
        if (++pending === 500) {
          await op.commit();
          [op, pending] = [kv.atomic(), 0];
        }
      }
      await op.commit();
      let total = 0n;
      const days = new Map<string, bigint>();
      for await (const entry of kv.list({ prefix: vaultKeys.recordsByTime(formId) })) {
        const day = String(entry.key[3]).slice(0, 10);
        days.set(day, (days.get(day) ?? 0n) + 1n);
        total++;
      }
      await kv.set(vaultKeys.recordCount(formId), new Deno.KvU64(total));
      for (const [day, n] of days) {
        await kv.set(vaultKeys.recordDay(formId, day), new Deno.KvU64(n));
      }
    }
  },
};

/** A delivery row as versions 0 to 2 wrote it: its attempt log inside. */
type DeliveryRowV2 = WebhookDelivery & { log?: WebhookAttempt[] };

/**
 * Version 3: a webhook delivery's attempts move from the log inside its row (rewritten whole by
 * every attempt) to one row each under `webhookKeys.attempt`.
 */
const webhookAttemptRows: Migration = {
  to: 3,
  description: "webhook attempts in their own rows",
  async run(kv) {
    await rewrite<DeliveryRowV2>(kv, ["webhooks", "deliveries"], (row, key) => {
      if (!("log" in row)) return Promise.resolve(null);
      const { log, ...rest } = row;
      return Promise.resolve((op) => {
        op.set(key, rest);
        for (const attempt of log ?? []) op.set(webhookKeys.attempt(row.id, attempt.n), attempt);
      });
    });
  },
};

/** Rows per atomic write of {@link compactEnvelopeRows} (one check each). */
export const COMPACT_BATCH = 100;

/**
 * Rewrites the entries under `prefix` still V8-serialized objects (not bytes) in atomic
 * batches of {@link COMPACT_BATCH}: `change` records each one's new entries and removals.
 */
async function rewriteObjects<T>(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  change: (entry: Deno.KvEntry<T>, op: Deno.AtomicOperation) => Promise<void>,
): Promise<void> {
  let op = kv.atomic();
  let rows = 0;
  const commit = async () => {
    // One process owns the store and migrates before serving: the checks cannot fail.
    if (rows > 0 && !(await op.commit()).ok) throw new Error(`Migrating ${prefix} failed`);
    [op, rows] = [kv.atomic(), 0];
  };
  for await (const entry of kv.list<T | Uint8Array>({ prefix })) {
    if (entry.value instanceof Uint8Array) continue;
    await change(entry as Deno.KvEntry<T>, op.check(entry));
    if (++rows === COMPACT_BATCH) await commit();
  }
  await commit();
}

/**
 * Version 5: the envelope port's rows in the compact encoding of src/store/kv/envelope_rows.ts
 * (bytes, no field names, no id the key holds, hex as bytes, times as numbers), hex ids and
 * fingerprints in their keys as bytes, and each queue's recipient key stored once under
 * `keys.queueKey` (the first row's), left out of the rows that carry the same one. A row already
 * in bytes is skipped, and each batch moves its rows atomically, so a run cut short resumes.
 */
const compactEnvelopeRows: Migration = {
  to: 5,
  description: "compact submission heads and queue rows",
  async run(kv) {
    await rewriteObjects<SubmissionHead>(kv, ["submissions"], (entry, op) => {
      const key = keys.submission(String(entry.key[1]));
      op.set(key, encodeHead(entry.value));
      if (key[1] !== entry.key[1]) op.delete(entry.key);
      return Promise.resolve();
    });
    const queueKeys = new Map<string, string>();
    await rewriteObjects<QueueRow>(kv, ["queue"], async (entry, op) => {
      const fp = String(entry.key[1]);
      let queueKey = queueKeys.get(fp);
      if (queueKey === undefined) {
        const stored = (await kv.get<string>(keys.queueKey(fp))).value;
        queueKey = stored ?? entry.value.recipientPubkey;
        if (stored === null) op.set(keys.queueKey(fp), queueKey);
        queueKeys.set(fp, queueKey);
      }
      const { recipientPubkey, ...rest } = entry.value;
      const key = keys.queue(fp, entry.key[2] as number);
      op.set(
        key,
        encodeQueued({
          ...rest,
          recipientPubkey: recipientPubkey === queueKey ? null : recipientPubkey,
        }),
      );
      if (key[1] !== entry.key[1]) op.delete(entry.key);
    });
  },
};

/** Every migration, in order: `MIGRATIONS[i].to === i + 1`. */
export const MIGRATIONS: Migration[] = [
  webhookBodiesInRefs,
  recordTimeIndex,
  webhookAttemptRows,
  queueCiphertextsInSegments,
  compactEnvelopeRows,
];
