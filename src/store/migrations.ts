/**
 * The store's migrations, oldest first (run by `migrateStore` in schema.ts). Migration N takes
 * a store from version N-1 to N; the layout each one leaves is the one `keys.ts` describes, and
 * nothing outside this module reads the layouts they replace.
 *
 * @module
 */
import type { Migration } from "./schema.ts";
import {
  type SubmissionRow,
  type WebhookAttemptRow,
  type WebhookConfigRow,
  type WebhookDeliveryRef,
  type WebhookDeliveryRow,
  webhookKeys,
} from "./keys.ts";

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
type DeliveryRowV0 = WebhookDeliveryRow & { body?: Uint8Array | null };

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
    await rewrite<WebhookConfigRow>(kv, ["webhooks", "configs"], (row, key) =>
      Promise.resolve(
        row.concurrency === undefined ? (op) => op.set(key, { ...row, concurrency: null }) : null,
      ));
    await rewrite<SubmissionRow & { pending?: unknown }>(kv, ["submissions"], (row, key) => {
      if (!("pending" in row)) return Promise.resolve(null);
      const { pending: _, ...rest } = row;
      return Promise.resolve((op) => op.set(key, rest));
    });
  },
};

/** A delivery row as versions 0 and 1 wrote it: its attempt log inside. */
type DeliveryRowV1 = WebhookDeliveryRow & { log?: WebhookAttemptRow[] };

/**
 * Version 2: a webhook delivery's attempts move from the log inside its row (rewritten whole by
 * every attempt) to one row each under `webhookKeys.attempt`.
 */
const webhookAttemptRows: Migration = {
  to: 2,
  description: "webhook attempts in their own rows",
  async run(kv) {
    await rewrite<DeliveryRowV1>(kv, ["webhooks", "deliveries"], (row, key) => {
      if (!("log" in row)) return Promise.resolve(null);
      const { log, ...rest } = row;
      return Promise.resolve((op) => {
        op.set(key, rest);
        for (const attempt of log ?? []) op.set(webhookKeys.attempt(row.id, attempt.n), attempt);
      });
    });
  },
};

/** Every migration, in order: `MIGRATIONS[i].to === i + 1`. */
export const MIGRATIONS: Migration[] = [webhookBodiesInRefs, webhookAttemptRows];
