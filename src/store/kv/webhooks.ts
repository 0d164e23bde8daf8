/**
 * Webhook configurations and their failure flags in Deno KV (layout: `webhookKeys` in
 * `src/store/kv/keys.ts`), behind the {@linkcode WebhookConfigs} port.
 *
 * One process owns the KV file and every configuration write goes through this class, so its
 * in-memory cache of configurations stays exact.
 *
 * @module
 */
import type { WebhookConfig, WebhookConfigs, WebhookFlag } from "../ports/webhooks.ts";
import { webhookKeys as k } from "./keys.ts";
import { KvWrite } from "./write.ts";
import type { KvWebhookDeliveries } from "./webhook_deliveries.ts";

/** Deno KV's `getMany` reads at most 10 keys. */
const GET_MANY = 10;

/**
 * Configurations and flags in Deno KV.
 *
 * @example
 * ```ts
 * const configs = new KvWebhookConfigs(kv, deliveries);
 * await configs.createConfig(row);
 * ```
 */
export class KvWebhookConfigs implements WebhookConfigs {
  #configs = new Map<string, WebhookConfig[]>();
  #formOf = new Map<string, string>();

  /** `deliveries`: where removed configurations' deliveries are purged. */
  constructor(
    private kv: Deno.Kv,
    private deliveries: KvWebhookDeliveries,
    private maxCachedForms = 10_000,
  ) {}

  async configsOf(formId: string): Promise<WebhookConfig[]> {
    const cached = this.#configs.get(formId);
    if (cached) return cached;
    const rows: WebhookConfig[] = [];
    for await (const entry of this.kv.list<WebhookConfig>({ prefix: k.configsOf(formId) })) {
      rows.push(entry.value);
    }
    rows.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    if (this.#configs.size >= this.maxCachedForms) {
      this.#configs.delete(this.#configs.keys().next().value!);
    }
    this.#configs.set(formId, rows);
    return rows;
  }

  async config(webhookId: string): Promise<WebhookConfig | null> {
    let formId = this.#formOf.get(webhookId);
    if (formId === undefined) {
      const pointer = await this.kv.get<string>(k.configForm(webhookId));
      if (pointer.value === null) return null;
      formId = pointer.value;
      this.#formOf.set(webhookId, formId);
    }
    return (await this.configsOf(formId)).find((c) => c.id === webhookId) ?? null;
  }

  async createConfig(row: WebhookConfig): Promise<boolean> {
    const w = new KvWrite()
      .check({ key: k.configForm(row.id), versionstamp: null })
      .set(k.config(row.formId, row.id), row)
      .set(k.configForm(row.id), row.formId);
    try {
      return await w.commit(this.kv);
    } finally {
      this.#configs.delete(row.formId);
    }
  }

  async updateConfig(before: WebhookConfig, after: WebhookConfig): Promise<boolean> {
    const current = await this.kv.get<WebhookConfig>(k.config(before.formId, before.id));
    if (current.value?.updatedAt !== before.updatedAt) return false;
    const w = new KvWrite()
      .check(current)
      .set(k.config(after.formId, after.id), after)
      .delete(k.flag(after.id));
    try {
      return await w.commit(this.kv);
    } finally {
      this.#configs.delete(after.formId);
    }
  }

  async removeConfig(row: WebhookConfig): Promise<void> {
    await new KvWrite()
      .delete(k.config(row.formId, row.id))
      .delete(k.configForm(row.id))
      .delete(k.flag(row.id))
      .set(k.purge(row.id), true)
      .commit(this.kv);
    this.#configs.delete(row.formId);
    this.#formOf.delete(row.id);
    await this.#purge(row.id);
  }

  async resumeRemovals(): Promise<void> {
    for await (const entry of this.kv.list({ prefix: k.purgesAll() })) {
      await this.#purge(entry.key[entry.key.length - 1] as string);
    }
  }

  /** Deletes the deliveries of removed configuration `webhookId`, then its purge marker. */
  async #purge(webhookId: string): Promise<void> {
    await this.deliveries.purgeAllOf(webhookId);
    await this.kv.delete(k.purge(webhookId));
  }

  async flag(webhookId: string): Promise<WebhookFlag | null> {
    return (await this.kv.get<WebhookFlag>(k.flag(webhookId))).value;
  }

  async flags(webhookIds: string[]): Promise<Map<string, WebhookFlag>> {
    const out = new Map<string, WebhookFlag>();
    for (let i = 0; i < webhookIds.length; i += GET_MANY) {
      const ids = webhookIds.slice(i, i + GET_MANY);
      const entries = await this.kv.getMany<WebhookFlag[]>(ids.map((id) => k.flag(id)));
      entries.forEach((e, j) => e.value && out.set(ids[j], e.value));
    }
    return out;
  }

  async clearFlag(webhookId: string): Promise<void> {
    await this.kv.delete(k.flag(webhookId));
  }

  async flagBlocked(webhookIds: string[], flag: WebhookFlag): Promise<void> {
    const w = new KvWrite();
    for (const id of webhookIds) w.set(k.flag(id), flag);
    await w.commit(this.kv);
  }

  async unflagBlocked(webhookId: string, eventId: string): Promise<void> {
    const flag = await this.kv.get<WebhookFlag>(k.flag(webhookId));
    if (flag.value?.reason === "blocked" && flag.value.eventId === eventId) {
      await new KvWrite().check(flag).delete(flag.key).commit(this.kv);
    }
  }

  async blockedFlags(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for await (const entry of this.kv.list<WebhookFlag>({ prefix: k.flagsAll() })) {
      const { reason, eventId } = entry.value;
      if (reason === "blocked" && eventId) out.set(String(entry.key.at(-1)), eventId);
    }
    return out;
  }
}
