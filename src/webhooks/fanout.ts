/**
 * One record event becomes one delivery per configuration of its form that fires on it.
 * The body is rendered once per delivery; each delivery makes its first attempt and commits
 * on its own (a slow receiver holds back no other configuration's delivery). The event
 * leaves the outbox with the last of its deliveries to be committed, or alone when none is
 * left to carry it; a crash before that replays it, and a delivery that exists already is
 * not written again (its id is the same on every replay): at least once.
 *
 * When an event cannot be rendered (its form's fields are unavailable), its configurations
 * are flagged `blocked` until it goes through.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { utf8Encode } from "../crypto/encoding.ts";
import type {
  RecordEvent,
  RecordEventOutbox,
  StoredRecordEvent,
} from "../store/ports/record_events.ts";
import type {
  WebhookConfig,
  WebhookConfigs,
  WebhookDeliveries,
  WebhookDelivery,
  WebhookEvent,
  WebhookFlag,
} from "../store/ports/webhooks.ts";
import { MAX_LARGE_VALUE_BYTES } from "../store/ports/limits.ts";
import type { Dispatcher, WebhookSettings } from "./dispatcher.ts";
import type { FormSource } from "./forms.ts";
import { renderBody } from "./render/index.ts";
import { type BlobUrlResolver, type RenderInput, resolveValues, savedAtMs } from "./values.ts";

/** Largest body a delivery can carry, in bytes. */
export const MAX_BODY_BYTES = MAX_LARGE_VALUE_BYTES;

const EVENT_OF: Record<RecordEvent["reason"], WebhookEvent> = {
  insert: "create",
  update: "update",
  delete: "delete",
};

/**
 * The id of the delivery of event `eventId` to configuration `webhookId`: the same on every
 * replay of the event (idempotent creation), ordered by the record's save time.
 */
function deliveryIdOf(event: RecordEvent, webhookId: string): string {
  const time = savedAtMs(event.savedAt).toString(16).padStart(12, "0");
  const hash = createHash("sha256").update(`${event.eventId}/${webhookId}`).digest("hex");
  return time + hash.slice(0, 20);
}

/** What the fan-out needs. */
export interface FanoutOptions {
  configs: WebhookConfigs;
  deliveries: WebhookDeliveries;
  outbox: RecordEventOutbox;
  forms: FormSource;
  dispatcher: Dispatcher;
  settings: WebhookSettings;
  blobUrl?: BlobUrlResolver;
}

/**
 * Turns record events into deliveries.
 *
 * @example
 * ```ts
 * const fanout = new Fanout({ configs, deliveries, outbox, forms, dispatcher, settings });
 * await fanout.loadBlocked();
 * await fanout.process(stored);
 * ```
 */
export class Fanout {
  /** Configurations flagged `blocked`, with the event that waits (the flag goes with it). */
  #blocked = new Map<string, string>();

  constructor(private options: FanoutOptions) {}

  /**
   * Reads which configurations are flagged `blocked` (on start and at each sweep: another
   * worker of the store may have flagged them); a flag cleared meanwhile is cleared again,
   * conditionally, which does nothing.
   */
  async loadBlocked(): Promise<void> {
    for (const [id, eventId] of await this.options.configs.blockedFlags()) {
      this.#blocked.set(id, eventId);
    }
  }

  /** Makes the deliveries of one event and removes it from the outbox. */
  async process(stored: StoredRecordEvent): Promise<void> {
    const { forms, settings, deliveries, outbox } = this.options;
    const { event } = stored;
    const wanted = EVENT_OF[event.reason];
    const configs = (await this.options.configs.configsOf(event.formId))
      .filter((c) => c.events.includes(wanted));
    let input: RenderInput | null = null;
    if (event.reason !== "delete" && configs.length > 0) {
      try {
        input = await resolveValues(event, await forms.fields(event.formId, event.schemaVersion), {
          blobUrl: this.options.blobUrl,
          blobUrlLifetimeSeconds: settings.blob_url_lifetime_seconds,
        });
      } catch (err) {
        await this.#flagBlocked(configs, event, err);
        throw err; // The event stays in the outbox; the sweep takes it again.
      }
    }
    /** Deliveries not yet committed; the last one carries the event's removal. */
    let open = configs.length;
    let removed = false;
    const deliver = async (config: WebhookConfig) => {
      const { row, body } = this.#newDelivery(event, config, input);
      const created = await this.options.dispatcher.first(config, row, body, MAX_BODY_BYTES);
      const carry = open === 1;
      const also = carry ? outbox.removal(stored) : undefined;
      const ok = await deliveries.createDelivery(created.change, created.body, also);
      open--;
      if (carry && ok) removed = true;
      if (ok) created.after();
    };
    if (configs.length === 1) await deliver(configs[0]);
    else {
      const outcomes = await Promise.allSettled(configs.map(deliver));
      const failed = outcomes.find((o) => o.status === "rejected");
      if (failed) throw failed.reason;
    }
    if (!removed) await outbox.remove(stored);
    if (this.#blocked.size > 0) await this.#unflagBlocked(event.eventId);
  }

  /** The new delivery row of `event` to `config` and its body (null: none to send). */
  #newDelivery(
    event: RecordEvent,
    config: WebhookConfig,
    input: RenderInput | null,
  ): { row: WebhookDelivery; body: Uint8Array | null } {
    const now = new Date().toISOString();
    const row: WebhookDelivery = {
      id: deliveryIdOf(event, config.id),
      webhookId: config.id,
      formId: event.formId,
      eventId: event.eventId,
      recordId: event.recordId,
      reason: event.reason,
      savedAt: event.savedAt,
      status: "pending",
      contentType: "",
      bodyParts: 0,
      bodyBytes: 0,
      attempts: 0,
      round: 0,
      token: "",
      nextAttemptAt: null,
      lastAttemptAt: null,
      lastStatus: null,
      lastError: null,
      lastSnippet: null,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
    };
    if (!input) return { row, body: null };
    const { body, contentType } = renderBody(config, input);
    const bytes = utf8Encode(body);
    row.contentType = contentType;
    if (bytes.length <= MAX_BODY_BYTES) row.bodyBytes = bytes.length;
    return { row, body: bytes };
  }

  /** Flags `configs` as blocked by `event`, which could not become deliveries (`err`). */
  async #flagBlocked(configs: WebhookConfig[], event: RecordEvent, err: unknown) {
    const flag: WebhookFlag = {
      at: new Date().toISOString(),
      deliveryId: null,
      reason: "blocked",
      eventId: event.eventId,
      status: null,
      error: `Record ${event.recordId} (event ${event.eventId}) waits, tried again every ` +
        `minute: ${err instanceof Error ? err.message : String(err)}`.slice(0, 1000),
    };
    await this.options.configs.flagBlocked(configs.map((c) => c.id), flag);
    for (const config of configs) this.#blocked.set(config.id, event.eventId);
  }

  /** Clears the `blocked` flags that event `eventId` set: it went through. */
  async #unflagBlocked(eventId: string) {
    for (const [webhookId, blocking] of this.#blocked) {
      if (blocking !== eventId) continue;
      this.#blocked.delete(webhookId);
      // A failure flagged since then stays.
      await this.options.configs.unflagBlocked(webhookId, eventId);
    }
  }
}
