/**
 * Copies the webhook aggregates of a Deno KV store (layout: `webhookKeys` in
 * src/store/kv/keys.ts) into PostgreSQL, for `sealpost migrate-store`: configurations, flags,
 * unfinished removals, and deliveries with their bodies, attempts, failure listings and
 * schedule. Idempotent (`on conflict do nothing`): a copy cut short is simply run again. A
 * pending delivery's KV queue message cannot be read back; its pending marker gives when its
 * attempt is due, which becomes its schedule row (written only with the delivery's own
 * insert, so a second run adds none). The record events outbox is the vault's (copied with
 * the vault's aggregates).
 *
 * @module
 */
import type {
  WebhookAttempt,
  WebhookConfig,
  WebhookDelivery,
  WebhookFlag,
} from "../../ports/webhooks.ts";
import type { WebhookDeliveryRef, WebhookPendingRow } from "../../kv/webhook_deliveries.ts";
import { webhookKeys as k } from "../../kv/keys.ts";
import { readParts } from "../../kv/parts.ts";
import type { Sql } from "../db.ts";
import { json } from "../json.ts";

/** Rows written per statement. */
const BATCH = 100;

/**
 * Copies every webhook row of `kv` into the migrated database of `sql`; returns how many
 * rows of each aggregate it newly inserted (`configs`, `flags`, `removals`, `deliveries`,
 * `attempts`; zeros on a second run). `dataDir`: the instance's data directory (webhooks keep
 * nothing there).
 *
 * @example
 * ```ts
 * const counts = await copyWebhooksFromKv(kv, dataDir, sql); // { configs: 3, deliveries: 120, … }
 * ```
 */
export async function copyWebhooksFromKv(
  kv: Deno.Kv,
  _dataDir: string,
  sql: Sql,
): Promise<Record<string, number>> {
  const counts = { configs: 0, flags: 0, removals: 0, deliveries: 0, attempts: 0 };
  for await (const entry of kv.list<WebhookConfig>({ prefix: ["webhooks", "configs"] })) {
    const row = entry.value;
    const { count } = await sql`insert into webhook_configs (id, form_id, created_at, config)
      values (${row.id}, ${row.formId}, ${row.createdAt}, ${json(row)}::json)
      on conflict (id) do nothing`;
    counts.configs += count;
  }
  for await (const entry of kv.list<WebhookFlag>({ prefix: k.flagsAll() })) {
    const { count } = await sql`insert into webhook_flags (webhook_id, flag)
      values (${String(entry.key.at(-1))}, ${json(entry.value)}::json)
      on conflict (webhook_id) do nothing`;
    counts.flags += count;
  }
  for await (const entry of kv.list({ prefix: k.purgesAll() })) {
    const { count } = await sql`insert into webhook_purges (webhook_id) values (${
      String(entry.key.at(-1))
    })
      on conflict (webhook_id) do nothing`;
    counts.removals += count;
  }
  let batch: WebhookDelivery[] = [];
  for await (const entry of kv.list<WebhookDelivery>({ prefix: ["webhooks", "deliveries"] })) {
    batch.push(entry.value);
    if (batch.length < BATCH) continue;
    await copyDeliveries(kv, sql, batch, counts);
    batch = [];
  }
  await copyDeliveries(kv, sql, batch, counts);
  return counts;
}

/** Copies `rows` with their bodies, listings, schedule and attempts. */
async function copyDeliveries(
  kv: Deno.Kv,
  sql: Sql,
  rows: WebhookDelivery[],
  counts: { deliveries: number; attempts: number },
): Promise<void> {
  if (rows.length === 0) return;
  const values: Record<string, unknown>[] = [];
  const attempts: { delivery_id: string; n: number; attempt: WebhookAttempt }[] = [];
  for (const row of rows) {
    const [ref, failed, pending] = await kv.getMany<
      [WebhookDeliveryRef, true, WebhookPendingRow]
    >([k.deliveryWebhook(row.id), k.failed(row.webhookId, row.id), k.pending(row.id)]);
    const body = row.bodyParts > 0 ? await readParts(kv, k.bodyOf(row.id)) : ref.value?.body;
    values.push({
      id: row.id,
      webhook_id: row.webhookId,
      event_id: row.eventId,
      status: row.status,
      failed: failed.value === true,
      due_at: row.status === "pending" ? pending.value?.dueAt ?? null : null,
      // The body is a column here, never in parts.
      delivery: json({ ...row, bodyParts: 0 }),
      body: body ?? null,
    });
    for await (const a of kv.list<WebhookAttempt>({ prefix: k.attemptsOf(row.id) })) {
      attempts.push({ delivery_id: row.id, n: a.value.n, attempt: a.value });
    }
  }
  await sql.begin(async (tx) => {
    const [{ n }] = await tx<{ n: number }[]>`
      with copied as (
        insert into webhook_deliveries ${tx(values)} on conflict do nothing
        returning id, webhook_id, due_at, delivery->>'token' as token
      ), scheduled as (
        insert into webhook_schedule (delivery_id, webhook_id, token, run_at)
        select id, webhook_id, token, due_at from copied where due_at is not null
      )
      select count(*)::int as n from copied`;
    counts.deliveries += n;
    for (let i = 0; i < attempts.length; i += BATCH) {
      const some = attempts.slice(i, i + BATCH).map((a) => ({ ...a, attempt: json(a.attempt) }));
      const { count } = await tx`insert into webhook_attempts ${tx(some)} on conflict do nothing`;
      counts.attempts += count;
    }
  });
}
