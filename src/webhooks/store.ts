/**
 * Webhook configurations, deliveries and attempts in Deno KV (layout in
 * `src/store/keys.ts`, section "Webhooks").
 *
 * One process owns the KV file, and every configuration write goes through this class, so
 * the in-memory cache of configurations stays exact.
 *
 * @module
 */
import { concatBytes } from "../crypto/encoding.ts";
import { Conflict, TooLarge } from "../errors/index.ts";
import { readPage } from "../http/ids.ts";
import {
  type WebhookAttemptRow,
  type WebhookConfigRow,
  type WebhookDeliveryRef,
  type WebhookDeliveryRow,
  type WebhookFlagRow,
  webhookKeys as k,
} from "../store/keys.ts";
import { commitSized } from "../store/kv.ts";

/** A page of deliveries, newest first. */
export interface DeliveryPage {
  items: WebhookDeliveryRow[];
  nextCursor: string | null;
}

/** Attempt rows a delivery keeps (the newest; older ones are deleted as new ones come). */
export const MAX_LOGGED_ATTEMPTS = 50;

/** Deno KV's `getMany` reads at most 10 keys. */
const GET_MANY = 10;

/** Mutations per purge operation, under Deno KV's 1000. */
const PURGE_MUTATIONS = 800;

/** A configuration over what one store row holds (its template and headers, mostly). */
const configTooLarge = () =>
  new TooLarge("webhook_too_large", "The webhook configuration exceeds 64 KiB");

/** Reads and writes webhook data. */
export class WebhookStore {
  #configs = new Map<string, WebhookConfigRow[]>();
  #formOf = new Map<string, string>();

  constructor(readonly kv: Deno.Kv, private maxCachedForms = 10_000) {}

  /** The configurations of form `formId`, oldest first. */
  async configsOf(formId: string): Promise<WebhookConfigRow[]> {
    const cached = this.#configs.get(formId);
    if (cached) return cached;
    const rows: WebhookConfigRow[] = [];
    for await (const entry of this.kv.list<WebhookConfigRow>({ prefix: k.configsOf(formId) })) {
      rows.push(entry.value);
    }
    rows.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    if (this.#configs.size >= this.maxCachedForms) {
      this.#configs.delete(this.#configs.keys().next().value!);
    }
    this.#configs.set(formId, rows);
    return rows;
  }

  /** The configuration `webhookId`, or null. */
  async config(webhookId: string): Promise<WebhookConfigRow | null> {
    let formId = this.#formOf.get(webhookId);
    if (formId === undefined) {
      const pointer = await this.kv.get<string>(k.configForm(webhookId));
      if (pointer.value === null) return null;
      formId = pointer.value;
      this.#formOf.set(webhookId, formId);
    }
    return (await this.configsOf(formId)).find((c) => c.id === webhookId) ?? null;
  }

  /** Stores a new configuration. */
  async create(row: WebhookConfigRow): Promise<void> {
    const op = this.kv.atomic()
      .check({ key: k.configForm(row.id), versionstamp: null })
      .set(k.config(row.formId, row.id), row)
      .set(k.configForm(row.id), row.formId);
    const result = await commitSized(op, configTooLarge);
    this.#configs.delete(row.formId);
    if (!result.ok) throw new Conflict("conflict", `Webhook id "${row.id}" is taken`);
  }

  /**
   * Replaces configuration `before` by `after` (same id) and clears its failure flag.
   *
   * @throws {Conflict} when it changed meanwhile.
   */
  async update(before: WebhookConfigRow, after: WebhookConfigRow): Promise<void> {
    const current = await this.kv.get<WebhookConfigRow>(k.config(before.formId, before.id));
    if (current.value?.updatedAt !== before.updatedAt) {
      throw new Conflict("conflict", `Webhook "${before.id}" changed meanwhile; try again`);
    }
    const op = this.kv.atomic()
      .check(current)
      .set(k.config(after.formId, after.id), after)
      .delete(k.flag(after.id));
    const result = await commitSized(op, configTooLarge);
    this.#configs.delete(after.formId);
    if (!result.ok) {
      throw new Conflict("conflict", `Webhook "${before.id}" changed meanwhile; try again`);
    }
  }

  /** Removes a configuration, then its deliveries with their bodies and attempts. */
  async remove(row: WebhookConfigRow): Promise<void> {
    await this.kv.atomic()
      .delete(k.config(row.formId, row.id))
      .delete(k.configForm(row.id))
      .delete(k.flag(row.id))
      .set(k.purge(row.id), true)
      .commit();
    this.#configs.delete(row.formId);
    this.#formOf.delete(row.id);
    await this.purgeDeliveries(row.id);
  }

  /** Finishes the deletions a stop interrupted (see {@linkcode WebhookStore.remove}). */
  async resumePurges(): Promise<void> {
    for await (const entry of this.kv.list({ prefix: k.purgesAll() })) {
      await this.purgeDeliveries(entry.key[entry.key.length - 1] as string);
    }
  }

  /** Deletes every delivery of `webhookId` (a removed configuration), in batches. */
  async purgeDeliveries(webhookId: string): Promise<void> {
    let op = this.kv.atomic();
    let mutations = 0;
    for await (
      const entry of this.kv.list<WebhookDeliveryRow>({ prefix: k.deliveriesOf(webhookId) })
    ) {
      const keys = this.#deliveryKeys(entry.value);
      if (mutations + keys.length > PURGE_MUTATIONS) {
        await op.commit();
        op = this.kv.atomic();
        mutations = 0;
      }
      for (const key of keys) op.delete(key);
      mutations += keys.length;
    }
    op.delete(k.purge(webhookId));
    await op.commit();
  }

  /** Deletes one delivery and everything it owns; false when it changed meanwhile. */
  async purgeDelivery(entry: Deno.KvEntry<WebhookDeliveryRow>): Promise<boolean> {
    const op = this.kv.atomic().check(entry);
    for (const key of this.#deliveryKeys(entry.value)) op.delete(key);
    return (await op.commit()).ok;
  }

  #deliveryKeys(row: WebhookDeliveryRow): Deno.KvKey[] {
    const keys: Deno.KvKey[] = [
      k.delivery(row.webhookId, row.id),
      k.deliveryWebhook(row.id),
      k.failed(row.webhookId, row.id),
      k.pending(row.id),
    ];
    for (let i = 0; i < row.bodyParts; i++) keys.push(k.body(row.id, i));
    for (let n = Math.max(1, row.attempts - MAX_LOGGED_ATTEMPTS + 1); n <= row.attempts; n++) {
      keys.push(k.attempt(row.id, n));
    }
    return keys;
  }

  /** The logged attempts of delivery `deliveryId` (the newest 50), oldest first. */
  async attempts(deliveryId: string): Promise<WebhookAttemptRow[]> {
    const rows: WebhookAttemptRow[] = [];
    for await (
      const entry of this.kv.list<WebhookAttemptRow>({ prefix: k.attemptsOf(deliveryId) })
    ) rows.push(entry.value);
    return rows;
  }

  /** The failure flag of `webhookId`, or null. */
  async flag(webhookId: string): Promise<WebhookFlagRow | null> {
    return (await this.kv.get<WebhookFlagRow>(k.flag(webhookId))).value;
  }

  /** Flags of several configurations, by id. */
  async flags(webhookIds: string[]): Promise<Map<string, WebhookFlagRow>> {
    const out = new Map<string, WebhookFlagRow>();
    for (let i = 0; i < webhookIds.length; i += GET_MANY) {
      const ids = webhookIds.slice(i, i + GET_MANY);
      const entries = await this.kv.getMany<WebhookFlagRow[]>(ids.map((id) => k.flag(id)));
      entries.forEach((e, j) => e.value && out.set(ids[j], e.value));
    }
    return out;
  }

  /** The delivery `deliveryId` with its versionstamp, or null. */
  async delivery(deliveryId: string): Promise<Deno.KvEntry<WebhookDeliveryRow> | null> {
    const ref = await this.#ref(deliveryId);
    if (ref === null) return null;
    const entry = await this.kv.get<WebhookDeliveryRow>(k.delivery(ref.webhookId, deliveryId));
    return entry.versionstamp === null ? null : entry as Deno.KvEntry<WebhookDeliveryRow>;
  }

  /**
   * A page of the deliveries of `webhookId`, newest first; only the failed ones when
   * `failed`. `cursor` is the previous page's `nextCursor`.
   */
  async deliveries(
    webhookId: string,
    options: { failed?: boolean; cursor?: string; limit: number },
  ): Promise<DeliveryPage> {
    const list = this.kv.list<WebhookDeliveryRow | true>(
      { prefix: options.failed ? k.failedOf(webhookId) : k.deliveriesOf(webhookId) },
      { reverse: true, limit: options.limit, cursor: options.cursor },
    );
    const found = await readPage(list);
    const nextCursor = found.length === options.limit ? list.cursor : null;
    if (!options.failed) {
      return { items: found.map((e) => e.value as WebhookDeliveryRow), nextCursor };
    }
    const items: WebhookDeliveryRow[] = [];
    for (let i = 0; i < found.length; i += GET_MANY) {
      const keys = found.slice(i, i + GET_MANY).map((e) =>
        k.delivery(webhookId, e.key[e.key.length - 1] as string)
      );
      for (const entry of await this.kv.getMany<WebhookDeliveryRow[]>(keys)) {
        if (entry.value) items.push(entry.value);
      }
    }
    return { items, nextCursor };
  }

  /** The ids of every failed delivery of `webhookId`. */
  async failedIds(webhookId: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const entry of this.kv.list({ prefix: k.failedOf(webhookId) })) {
      ids.push(entry.key[entry.key.length - 1] as string);
    }
    return ids;
  }

  /** The stored body of a delivery (empty when none was kept: skipped, or over the limit). */
  async body(row: WebhookDeliveryRow): Promise<Uint8Array> {
    if (row.bodyParts === 0) {
      const ref = await this.#ref(row.id);
      if (!ref) throw new Error(`The ref of delivery ${row.id} is missing`);
      return ref.body ?? new Uint8Array();
    }
    const parts: Uint8Array[] = [];
    for (let i = 0; i < row.bodyParts; i++) {
      const part = (await this.kv.get<Uint8Array>(k.body(row.id, i))).value;
      if (!part) throw new Error(`Body part ${i} of delivery ${row.id} is missing`);
      parts.push(part);
    }
    return concatBytes(...parts);
  }

  /** The ref of delivery `deliveryId`, or null. */
  async #ref(deliveryId: string): Promise<WebhookDeliveryRef | null> {
    return (await this.kv.get<WebhookDeliveryRef>(k.deliveryWebhook(deliveryId))).value;
  }
}
