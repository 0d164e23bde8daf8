/**
 * The delivery engine: the runners of the delivery transition (`transition.ts`), wired
 * together.
 *
 * - the outbox consumer (`outbox.ts`) takes record events as the vault announces them, and
 *   scans the outbox for those it missed;
 * - the fan-out (`fanout.ts`) makes one delivery per configuration of the event, each
 *   committed on its own;
 * - the dispatcher (`dispatcher.ts`) makes attempts: the first at once, later ones when
 *   their Deno KV queue message (written with `delay` in the same atomic operation as the
 *   state that expects it, `scheduler.ts`) comes;
 * - the sweeper (`sweeper.ts`) re-arms a pending delivery whose message went missing, once a
 *   minute, and asks for a scan of the outbox.
 *
 * Deno KV's own redelivery schedule is never relied on. A failure flags its configuration
 * for the owner until the configuration is edited or retried.
 *
 * @module
 */
import { utf8Encode } from "../crypto/encoding.ts";
import type { RecordEvent } from "../events/record_event.ts";
import { Conflict } from "../errors/index.ts";
import { type WebhookConfigRow, type WebhookDeliveryRow, webhookKeys as k } from "../store/keys.ts";
import { GroupCommitter } from "../store/group_commit.ts";
import type { QueueDispatcher, QueueMessage } from "../store/queue.ts";
import { Dispatcher, type WebhookSettings } from "./dispatcher.ts";
import { Fanout } from "./fanout.ts";
import type { FormSource } from "./forms.ts";
import type { Resolver } from "./guard.ts";
import { Lifecycle } from "./lifecycle.ts";
import { OutboxConsumer } from "./outbox.ts";
import { renderBody } from "./render/index.ts";
import { buildRequest } from "./request.ts";
import { type AttemptMessage, WEBHOOK_ATTEMPT_KIND } from "./scheduler.ts";
import { type AttemptResult, sendRequest } from "./send.ts";
import type { WebhookStore } from "./store.ts";
import { rearm, sweepPending } from "./sweeper.ts";
import { type BlobUrlResolver, formatSavedAt, resolveValues, sampleValues } from "./values.ts";

export type { WebhookSettings } from "./dispatcher.ts";
export { MAX_BODY_BYTES } from "./fanout.ts";
export { WEBHOOK_ATTEMPT_KIND } from "./scheduler.ts";

/** What the engine needs. */
export interface WebhookEngineOptions {
  store: WebhookStore;
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

/** Delay of a message put back while the engine stops (it comes back after the restart). */
const STOPPING_REQUEUE_MS = 1_000;
/** How often the recovery sweep runs. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Delivers record events to webhook configurations.
 *
 * @example
 * ```ts
 * const engine = new WebhookEngine({ store, forms, settings: config.webhooks });
 * engine.register(dispatcher);
 * await engine.start();
 * dispatcher.start();
 * // ...
 * await engine.stop();
 * ```
 */
export class WebhookEngine {
  readonly store: WebhookStore;
  readonly forms: FormSource;
  #kv: Deno.Kv;
  #settings: WebhookSettings;
  #blobUrl?: BlobUrlResolver;
  #life: Lifecycle;
  /** Folds concurrent deliveries' writes into shared atomic operations. */
  #committer: GroupCommitter;
  #dispatcher: Dispatcher;
  #fanout: Fanout;
  #outbox: OutboxConsumer;
  #sweeper: ReturnType<typeof setInterval> | null = null;

  constructor(options: WebhookEngineOptions) {
    this.store = options.store;
    this.forms = options.forms;
    this.#kv = options.store.kv;
    this.#settings = options.settings;
    this.#blobUrl = options.blobUrl;
    this.#life = new Lifecycle(options.log ?? ((line) => console.error(line)));
    // Two commits in flight: nothing here pages by commit sequence, and a delivery has one
    // write in the committer at a time (attempts are claimed).
    this.#committer = new GroupCommitter(this.#kv, undefined, 2);
    this.#dispatcher = new Dispatcher({
      store: this.store,
      committer: this.#committer,
      life: this.#life,
      settings: options.settings,
      resolve: options.resolve,
      random: options.random ?? Math.random,
      onAttempt: options.onAttempt,
    });
    this.#fanout = new Fanout({
      store: this.store,
      forms: this.forms,
      dispatcher: this.#dispatcher,
      committer: this.#committer,
      settings: options.settings,
      blobUrl: options.blobUrl,
    });
    this.#outbox = new OutboxConsumer({
      kv: this.#kv,
      life: this.#life,
      process: (stored) => this.#fanout.process(stored),
      maxWaiting: options.maxWaiting ?? 10_000,
      maxActive: options.maxActive ?? 512,
    });
  }

  /** Registers the handler of delivery attempt messages. */
  register(queue: QueueDispatcher): void {
    queue.on(WEBHOOK_ATTEMPT_KIND, (m) => this.#handle(m));
  }

  /** Makes a message's attempt; while stopping, puts the message back for the next start. */
  async #handle(message: QueueMessage): Promise<void> {
    if (this.#life.stopping) {
      try {
        await this.#kv.enqueue(message, { delay: STOPPING_REQUEUE_MS });
      } catch (err) {
        // Closed already: the message cannot be acknowledged either, so it stays queued.
        const closed = err instanceof Deno.errors.BadResource ||
          (err instanceof Error && /database is closed/i.test(err.message));
        if (!closed) throw err;
      }
      return;
    }
    await this.#life.track(() => this.#dispatcher.queued(message as AttemptMessage));
  }

  /**
   * Takes announced record events from now on, and recovers what a stop may have left
   * (finishes interrupted removals, re-arms every overdue pending delivery, processes the
   * events left in the outbox); then sweeps once a minute.
   */
  async start(): Promise<void> {
    this.#life.start();
    this.#outbox.start();
    await this.store.resumePurges();
    await this.#fanout.loadBlocked();
    await this.sweep(0);
    const grace = SWEEP_INTERVAL_MS + this.#settings.request_timeout_seconds * 1000;
    this.#sweeper = setInterval(() => {
      this.#life.track(() => this.sweep(grace)).catch((err) =>
        this.#life.log("error", "Webhook sweep failed", { error: String(err) })
      );
    }, SWEEP_INTERVAL_MS);
  }

  /**
   * Stops sweeping and waits for the work under way; messages that arrive meanwhile are put
   * back in the queue, and events not yet taken stay in the outbox.
   */
  async stop(): Promise<void> {
    const stopped = this.#life.stop(); // From here on, no new work starts.
    this.#outbox.stop();
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    this.#sweeper = null;
    await stopped;
    await this.#committer.idle();
  }

  /**
   * The owner's retry of one delivery: a new attempt now, a fresh schedule, the
   * configuration's flag cleared. A delivered one is sent again.
   *
   * @throws {Conflict} for a skipped (delete) delivery, one being sent right now, or one
   * that changed meanwhile.
   */
  async retry(entry: Deno.KvEntry<WebhookDeliveryRow>): Promise<void> {
    const row = entry.value;
    if (row.status === "skipped") {
      throw new Conflict(
        "delivery_skipped",
        `Delivery "${row.id}" is a delete event: no HTTP call is made for it`,
      );
    }
    if (this.#dispatcher.sending.has(row.id)) {
      throw new Conflict("delivery_in_flight", `Delivery "${row.id}" is being sent now`);
    }
    if (!await rearm(this.#kv, this.#dispatcher, entry, "retry")) {
      throw new Conflict("conflict", `Delivery "${row.id}" changed meanwhile; try again`);
    }
  }

  /** The owner's retry of every failed delivery of `webhookId`; returns how many. */
  async retryFailed(webhookId: string): Promise<number> {
    let count = 0;
    for (const id of await this.store.failedIds(webhookId)) {
      const entry = await this.#kv.get<WebhookDeliveryRow>(k.delivery(webhookId, id));
      if (entry.value?.status === "failed" && !this.#dispatcher.sending.has(id)) {
        const failed = entry as Deno.KvEntry<WebhookDeliveryRow>;
        if (await rearm(this.#kv, this.#dispatcher, failed, "retry")) count++;
      }
    }
    await this.#kv.delete(k.flag(webhookId));
    return count;
  }

  /**
   * Re-arms pending deliveries overdue by more than `graceMs` (their message may be lost;
   * 0 on start, when nothing is under way) and asks for a scan of the outbox for events
   * older than `graceMs`. Returns how many deliveries it re-armed.
   */
  async sweep(graceMs: number): Promise<number> {
    const rearmed = await sweepPending(this.#kv, this.#dispatcher, graceMs);
    // Events announced but never settled (or never announced) are taken from the outbox.
    this.#outbox.requestScan(graceMs);
    return rearmed;
  }

  /**
   * Sends one request to `config` now, with a sample record (or `values`), outside the
   * delivery machinery: nothing is stored, nothing is retried.
   */
  async testSend(
    config: WebhookConfigRow,
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
