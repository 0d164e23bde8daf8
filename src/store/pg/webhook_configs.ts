/**
 * Webhook configurations and their failure flags in PostgreSQL (`webhook_configs`,
 * `webhook_flags`, `webhook_purges`; the baseline migration), behind the {@linkcode WebhookConfigs} port.
 *
 * Every read goes to the database: several processes edit configurations, so no process
 * keeps a copy. Conditional writes (`createConfig`, `updateConfig`, `unflagBlocked`) are one
 * statement each, atomic with their check.
 *
 * @module
 */
import type { WebhookConfig, WebhookConfigs, WebhookFlag } from "../ports/webhooks.ts";
import type { Sql } from "./db.ts";
import { checkRowSize, json } from "./json.ts";

/** Deliveries deleted per statement while a removed configuration is purged. */
const PURGE_BATCH = 500;

/**
 * Configurations and flags in PostgreSQL.
 *
 * @example
 * ```ts
 * const configs = new PgWebhookConfigs(sql);
 * await configs.createConfig(row);
 * ```
 */
export class PgWebhookConfigs implements WebhookConfigs {
  constructor(private sql: Sql) {}

  async configsOf(formId: string): Promise<WebhookConfig[]> {
    const rows = await this.sql<{ config: WebhookConfig }[]>`
      select config from webhook_configs where form_id = ${formId} order by created_at, id`;
    return rows.map((r) => r.config);
  }

  async config(webhookId: string): Promise<WebhookConfig | null> {
    const [row] = await this.sql<{ config: WebhookConfig }[]>`
      select config from webhook_configs where id = ${webhookId}`;
    return row?.config ?? null;
  }

  async createConfig(row: WebhookConfig): Promise<boolean> {
    checkRowSize(row);
    const inserted = await this.sql`
      insert into webhook_configs (id, form_id, created_at, config)
      values (${row.id}, ${row.formId}, ${row.createdAt}, ${json(row)}::json)
      on conflict (id) do nothing returning id`;
    return inserted.length === 1;
  }

  async updateConfig(before: WebhookConfig, after: WebhookConfig): Promise<boolean> {
    checkRowSize(after);
    const [{ n }] = await this.sql<{ n: number }[]>`
      with updated as (
        update webhook_configs set config = ${json(after)}::json
        where id = ${before.id} and config->>'updatedAt' = ${before.updatedAt}
        returning id
      ), cleared as (
        delete from webhook_flags where webhook_id in (select id from updated)
      )
      select count(*)::int as n from updated`;
    return n === 1;
  }

  async removeConfig(row: WebhookConfig): Promise<void> {
    await this.sql.begin(async (tx) => {
      await tx`delete from webhook_configs where id = ${row.id}`;
      await tx`delete from webhook_flags where webhook_id = ${row.id}`;
      await tx`insert into webhook_purges (webhook_id) values (${row.id})
        on conflict (webhook_id) do nothing`;
    });
    await this.#purge(row.id);
  }

  async resumeRemovals(): Promise<void> {
    const purges = await this.sql<{ webhook_id: string }[]>`select webhook_id from webhook_purges`;
    for (const { webhook_id } of purges) await this.#purge(webhook_id);
  }

  /** Deletes the deliveries of removed configuration `webhookId`, then its purge marker. */
  async #purge(webhookId: string): Promise<void> {
    for (let deleted = PURGE_BATCH; deleted === PURGE_BATCH;) {
      const rows = await this.sql`
        delete from webhook_deliveries where id in (
          select id from webhook_deliveries where webhook_id = ${webhookId} limit ${PURGE_BATCH}
        ) returning id`;
      deleted = rows.length;
    }
    await this.sql`delete from webhook_schedule where webhook_id = ${webhookId}`;
    await this.sql`delete from webhook_purges where webhook_id = ${webhookId}`;
  }

  async flag(webhookId: string): Promise<WebhookFlag | null> {
    const [row] = await this.sql<{ flag: WebhookFlag }[]>`
      select flag from webhook_flags where webhook_id = ${webhookId}`;
    return row?.flag ?? null;
  }

  async flags(webhookIds: string[]): Promise<Map<string, WebhookFlag>> {
    if (webhookIds.length === 0) return new Map();
    const rows = await this.sql<{ webhook_id: string; flag: WebhookFlag }[]>`
      select webhook_id, flag from webhook_flags where webhook_id in ${this.sql(webhookIds)}`;
    return new Map(rows.map((r) => [r.webhook_id, r.flag]));
  }

  async clearFlag(webhookId: string): Promise<void> {
    await this.sql`delete from webhook_flags where webhook_id = ${webhookId}`;
  }

  async flagBlocked(webhookIds: string[], flag: WebhookFlag): Promise<void> {
    if (webhookIds.length === 0) return;
    await this.sql`
      insert into webhook_flags (webhook_id, flag)
      select id, ${json(flag)}::json from unnest(${webhookIds}::text[]) as id
      on conflict (webhook_id) do update set flag = excluded.flag`;
  }

  async unflagBlocked(webhookId: string, eventId: string): Promise<void> {
    await this.sql`
      delete from webhook_flags
      where webhook_id = ${webhookId} and flag->>'reason' = 'blocked'
        and flag->>'eventId' = ${eventId}`;
  }

  async blockedFlags(): Promise<Map<string, string>> {
    const rows = await this.sql<{ webhook_id: string; event_id: string }[]>`
      select webhook_id, flag->>'eventId' as event_id from webhook_flags
      where flag->>'reason' = 'blocked' and flag->>'eventId' is not null`;
    return new Map(rows.map((r) => [r.webhook_id, r.event_id]));
  }
}
