/**
 * The delivery engine: the runners of the delivery transition (`transition.ts`), wired
 * together.
 *
 * - the outbox consumer (`outbox.ts`) takes record events as the vault announces them, and
 *   scans the outbox for those it missed;
 * - the fan-out (`fanout.ts`) makes one delivery per configuration of the event, each
 *   committed on its own;
 * - the dispatcher (`dispatcher.ts`) makes attempts: the first at once, later ones when
 *   the store's schedule (written in the same atomic write as the state that expects it,
 *   `scheduler.ts`) makes them due;
 * - the sweeper (`sweeper.ts`) re-arms a pending delivery whose scheduled attempt went
 *   missing, once a minute, and asks for a scan of the outbox.
 *
 * The store comes as ports (`src/store/ports/webhooks.ts`, `record_events.ts`); the store's
 * own redelivery schedule is never relied on. A failure flags its configuration for the owner
 * until the configuration is edited or retried.
 *
 * @module
 */
import { utf8Encode } from "../crypto/encoding.ts";
import type { RecordEvent, RecordEventOutbox } from "../store/ports/record_events.ts";
import { Conflict } from "../errors/index.ts";
import type {
  ScheduledAttempt,
  StoredDelivery,
  WebhookConfig,
  WebhookConfigs,
  WebhookDeliveries,
} from "../store/ports/webhooks.ts";
import { Dispatcher, type WebhookSettings } from "./dispatcher.ts";
import { Fanout } from "./fanout.ts";
import type { FormSource } from "./forms.ts";
import type { Resolver } from "./guard.ts";
import { Lifecycle } from "./lifecycle.ts";
import { OutboxConsumer } from "./outbox.ts";
import { renderBody } from "./render/index.ts";
import { buildRequest } from "./request.ts";
import { type AttemptResult, sendRequest } from "./send.ts";
import { rearm, sweepPending } from "./sweeper.ts";
import { type BlobUrlResolver, formatSavedAt, resolveValues, sampleValues } from "./values.ts";

export type { WebhookSettings } from "./dispatcher.ts";
export { MAX_BODY_BYTES } from "./fanout.ts";

/** What the engine needs. */
export interface WebhookEngineOptions {
  /** Configurations and their failure flags. */
  webhooks: WebhookConfigs;
  deliveries: WebhookDeliveries;
  /** Where record events come from. */
  recordEvents: RecordEventOutbox;
  forms: FormSource;
  settings: WebhookSettings;
  /** Fresh pre-signed URLs of owned files; without it an owned reference keeps its URL. */
  blobUrl?: BlobUrlResolver;
  /** DNS for the private-network guard (default `Deno.resolveDns`). */
  resolve?: Resolver;
  /** Where log lines go (default stderr). Lines carry ids and statuses, never secrets. */
  log?: (line: string) => void;
  /** Told of each attempt's outcome (metrics). */
  onAttempt?: (outcome: AttemptResult["outcome"]) => void;
  /** Randomness of the jitter (default `Math.random`). */
  random?: () => number;
  /** Record events held in memory at most; the rest wait in the outbox (default 10,000). */
  maxWaiting?: number;
  /** Record events processed at once (default 512). */
  maxActive?: number;
}

/** What a test send did. */
export interface TestSendResult {
  contentType: string;
  /** The body that was sent. */
  body: string;
  result: AttemptResult;
}

/** Delay of an attempt put back while the engine stops (it comes back after the restart). */
const STOPPING_REQUEUE_MS = 1_000;
/** How often the recovery sweep runs. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Delivers record events to webhook configurations.
 *
 * @example
 * ```ts
 * const queue = new QueueDispatcher(kv);
 * const engine = new WebhookEngine({
 *   ...webhookKvPorts(kv, queue),
 *   forms,
 *   settings: config.webhooks,
 * });
 * await engine.start();
 * queue.start();
 * // ...
 * await engine.stop();
 * ```
 */
export class WebhookEngine {
  /** Configurations and their failure flags. */
  readonly webhooks: WebhookConfigs;
  readonly deliveries: WebhookDeliveries;
  readonly forms: FormSource;
  #settings: WebhookSettings;
  #blobUrl?: BlobUrlResolver;
  #life: Lifecycle;
  #dispatcher: Dispatcher;
  #fanout: Fanout;
  #outbox: OutboxConsumer;
  #sweeper: ReturnType<typeof setInterval> | null = null;

  constructor(options: WebhookEngineOptions) {
    this.webhooks = options.webhooks;
    this.deliveries = options.deliveries;
    this.forms = options.forms;
    this.#settings = options.settings;
    this.#blobUrl = options.blobUrl;
    this.#life = new Lifecycle(options.log ?? ((line) => console.error(line)));
    this.#dispatcher = new Dispatcher({
      configs: this.webhooks,
      deliveries: this.deliveries,
      life: this.#life,
      settings: options.settings,
      resolve: options.resolve,
      random: options.random ?? Math.random,
      onAttempt: options.onAttempt,
    });
    this.#fanout = new Fanout({
      configs: this.webhooks,
      deliveries: this.deliveries,
      outbox: options.recordEvents,
      forms: this.forms,
      dispatcher: this.#dispatcher,
      settings: options.settings,
      blobUrl: options.blobUrl,
    });
    this.#outbox = new OutboxConsumer({
      outbox: options.recordEvents,
      life: this.#life,
      process: (stored) => this.#fanout.process(stored),
      maxWaiting: options.maxWaiting ?? 10_000,
      maxActive: options.maxActive ?? 512,
    });
    this.deliveries.onDue((attempt) => this.#due(attempt));
  }

  /** Makes a scheduled attempt; while stopping, puts it back for the next start. */
  async #due(attempt: ScheduledAttempt): Promise<void> {
    if (this.#life.stopping) {
      await this.deliveries.redeliver(attempt, STOPPING_REQUEUE_MS);
      return;
    }
    await this.#life.track(() => this.#dispatcher.due(attempt));
  }

  /**
   * Takes announced record events from now on, and recovers what a stop may have left
   * (finishes interrupted removals, re-arms every overdue pending delivery, processes the
   * events left in the outbox); then sweeps once a minute.
   */
  async start(): Promise<void> {
    this.#life.start();
    this.#outbox.start();
    await this.webhooks.resumeRemovals();
    await this.sweep(0);
    const grace = SWEEP_INTERVAL_MS + this.#settings.request_timeout_seconds * 1000;
    this.#sweeper = setInterval(() => {
      this.#life.track(() => this.sweep(grace)).catch((err) =>
        this.#life.log("error", "Webhook sweep failed", { error: String(err) })
      );
    }, SWEEP_INTERVAL_MS);
  }

  /**
   * Stops sweeping and waits for the work under way; attempts that come due meanwhile are put
   * back, and events not yet taken stay in the outbox.
   */
  async stop(): Promise<void> {
    const stopped = this.#life.stop(); // From here on, no new work starts.
    this.#outbox.stop();
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    this.#sweeper = null;
    await stopped;
    await this.deliveries.idle();
  }

  /**
   * The owner's retry of one delivery: a new attempt now, a fresh schedule, the
   * configuration's flag cleared. A delivered one is sent again.
   *
   * @throws {Conflict} for a skipped (delete) delivery, one being sent right now, or one
   * that changed meanwhile.
   */
  async retry(stored: StoredDelivery): Promise<void> {
    const { row } = stored;
    if (row.status === "skipped") {
      throw new Conflict(
        "delivery_skipped",
        `Delivery "${row.id}" is a delete event: no HTTP call is made for it`,
      );
    }
    if (this.#dispatcher.sending.has(row.id)) {
      throw new Conflict("delivery_in_flight", `Delivery "${row.id}" is being sent now`);
    }
    if (!await rearm(this.deliveries, this.#dispatcher, stored, "retry")) {
      throw new Conflict("conflict", `Delivery "${row.id}" changed meanwhile; try again`);
    }
  }

  /** The owner's retry of every failed delivery of `webhookId`; returns how many. */
  async retryFailed(webhookId: string): Promise<number> {
    let count = 0;
    for (const id of await this.deliveries.failedIds(webhookId)) {
      const stored = await this.deliveries.delivery(id);
      if (stored?.row.status === "failed" && !this.#dispatcher.sending.has(id)) {
        if (await rearm(this.deliveries, this.#dispatcher, stored, "retry")) count++;
      }
    }
    await this.webhooks.clearFlag(webhookId);
    return count;
  }

  /**
   * Reads which configurations are flagged `blocked`, re-arms pending deliveries overdue by
   * more than `graceMs` (their message may be lost; 0 on start, when nothing is under way) and
   * asks for a scan of the outbox for events older than `graceMs`. Returns how many deliveries
   * it re-armed.
   */
  async sweep(graceMs: number): Promise<number> {
    // Blocked flags another worker of the store set: cleared here too once their event goes.
    await this.#fanout.loadBlocked();
    const rearmed = await sweepPending(this.deliveries, this.#dispatcher, graceMs);
    // Events announced but never settled (or never announced) are taken from the outbox.
    this.#outbox.requestScan(graceMs);
    return rearmed;
  }

  /**
   * Sends one request to `config` now, with a sample record (or `values`), outside the
   * delivery machinery: nothing is stored, nothing is retried.
   */
  async testSend(
    config: WebhookConfig,
    values?: Record<string, unknown>,
  ): Promise<TestSendResult> {
    const fields = await this.forms.fields(config.formId);
    const id = `test_${crypto.getRandomValues(new Uint8Array(8)).toHex()}`;
    const event: RecordEvent = {
      eventId: id,
      reason: "insert",
      recordId: id,
      formId: config.formId,
      schemaVersion: 0,
      savedAt: formatSavedAt(new Date()),
      values: values ?? sampleValues(fields ?? []),
    };
    const input = await resolveValues(event, fields, {
      blobUrl: this.#blobUrl,
      blobUrlLifetimeSeconds: this.#settings.blob_url_lifetime_seconds,
    });
    const { body, contentType } = renderBody(config, input);
    const request = buildRequest(config, { id, body: utf8Encode(body), contentType });
    const result = await sendRequest(request, this.#dispatcher.sendOptions());
    return { contentType, body, result };
  }
}
