/**
 * The delivery engine.
 *
 * Record events come from the outbox the vault writes with each record change
 * (src/events): announced in-process as they commit, and found by a scan of the outbox on
 * start and whenever announcements were missed or dropped (more waiting than memory holds).
 * For each configuration of the form that fires on the event, the body is rendered once and
 * the first attempt is made at once; then one atomic operation records every delivery of
 * the event (state, body, attempt) and deletes the event from the outbox. A crash before
 * that leaves the event in the outbox, so it is sent again after the restart: at least once.
 *
 * Later attempts are Deno KV queue messages with `delay`, each written in the same atomic
 * operation as the state that expects it: a delivery left pending by a transient failure
 * (or whose first attempt is scheduled later, or could not get a slot of its configuration)
 * gets a message naming it with a token, so stale or duplicate messages do nothing. Each
 * attempt logs itself and, in one atomic operation, writes the new state with the next
 * message (`delay` = schedule + jitter, raised by Retry-After), or marks the delivery
 * delivered or failed. A failure flags its configuration for the owner until the
 * configuration is edited or retried. Writes of concurrent deliveries share atomic
 * operations (group commit). A sweep re-arms a pending delivery whose message went missing.
 * Deno KV's own redelivery schedule is never relied on.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Config } from "../config/index.ts";
import { utf8Encode } from "../crypto/encoding.ts";
import {
  onRecordEvents,
  type RecordEvent,
  type StoredRecordEvent,
} from "../events/record_event.ts";
import { ApiError } from "../http/errors.ts";
import {
  keys,
  type WebhookAttemptRow,
  type WebhookConfigRow,
  type WebhookDeliveryRef,
  type WebhookDeliveryRow,
  type WebhookEvent,
  type WebhookFlagRow,
  webhookKeys as k,
  type WebhookPendingRow,
} from "../store/keys.ts";
import { deleteLargeValue, MAX_LARGE_VALUE_BYTES, parseLargeValue } from "../store/large_value.ts";
import { GroupCommitter } from "../store/group_commit.ts";
import type { QueueDispatcher, QueueMessage } from "../store/queue.ts";
import type { FormSource } from "./forms.ts";
import type { Resolver } from "./guard.ts";
import { KeyedLimiter } from "./limiter.ts";
import { nextWaitSeconds } from "./outcome.ts";
import { renderBody } from "./render/index.ts";
import { buildRequest } from "./request.ts";
import { type AttemptResult, sendRequest } from "./send.ts";
import type { WebhookStore } from "./store.ts";
import {
  type BlobUrlResolver,
  formatSavedAt,
  type RenderInput,
  resolveValues,
  sampleValues,
} from "./values.ts";

/** The queue message kind of delivery attempts. */
export const WEBHOOK_ATTEMPT_KIND = "webhook_attempt";

/** Largest body a delivery can carry, in bytes. */
export const MAX_BODY_BYTES = MAX_LARGE_VALUE_BYTES;

/** The `webhooks` section of the configuration. */
export type WebhookSettings = Config["webhooks"];

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

interface AttemptMessage extends QueueMessage {
  kind: typeof WEBHOOK_ATTEMPT_KIND;
  webhookId: string;
  deliveryId: string;
  token: string;
}

/** One delivery to create, as a part of an atomic operation. */
interface NewDelivery {
  key: Deno.KvKey;
  mutations: number;
  bytes: number;
  apply(op: Deno.AtomicOperation): void;
  /** Runs once the delivery is recorded. */
  after?: () => void;
}

const EVENT_OF: Record<RecordEvent["reason"], WebhookEvent> = {
  insert: "create",
  update: "update",
  delete: "delete",
};

/** Bytes per body part, under Deno KV's 64 KiB value limit. */
const BODY_PART_BYTES = 60 * 1024;
/**
 * Bodies up to this size live in the delivery's ref, beside its row (see
 * `WebhookDeliveryRef`); larger ones in parts.
 */
const REF_BODY_BYTES = 16 * 1024;
/** Attempts a delivery row keeps in its log (well under 64 KiB). */
export const MAX_LOGGED_ATTEMPTS = 50;
/** Limits of one creation batch, under Deno KV's 100 checks, 1000 mutations, 800 KiB. */
const BATCH = { checks: 100, mutations: 900, bytes: 700 * 1024 };
/** How long an attempt waits for a slot of its configuration before coming back later. */
const SLOT_WAIT_MS = 2_000;
/** When it comes back. */
const DEFER_MS = 1_000;
/** Delay of a message put back while the engine stops (it comes back after the restart). */
const STOPPING_REQUEUE_MS = 1_000;
/** How often the recovery sweep runs. */
const SWEEP_INTERVAL_MS = 60_000;
/**
 * Settled events remembered (at least this many, at most twice), so a scan that read one
 * before it was settled skips it.
 */
const MAX_RECENT = 20_000;
/** The root of the record event snapshots (`keys.recordEvent(id)` is `[root, id]`). */
const RECORD_EVENTS_ROOT = keys.recordEvent("")[0];

const newToken = () => crypto.getRandomValues(new Uint8Array(8)).toHex();

/**
 * The id of the delivery of event `eventId` to configuration `webhookId`: the same on every
 * replay of the event (idempotent creation), ordered by the record's save time.
 */
function deliveryIdOf(event: RecordEvent, webhookId: string): string {
  const time = savedAtMs(event.savedAt).toString(16).padStart(12, "0");
  const hash = createHash("sha256").update(`${event.eventId}/${webhookId}`).digest("hex");
  return time + hash.slice(0, 20);
}

/** Adds the failure of `flag.deliveryId` to `op`: listed as failed, its configuration flagged. */
function addFailure(
  op: Deno.AtomicOperation,
  flag: WebhookFlagRow & { deliveryId: string },
  webhookId: string,
): void {
  op.set(k.failed(webhookId, flag.deliveryId), true).set(k.flag(webhookId), flag);
}

/** Epoch milliseconds of a `savedAt` (0 when unreadable). */
function savedAtMs(savedAt: string): number {
  const ms = Date.parse(`${savedAt.slice(0, 23)}Z`);
  return Number.isNaN(ms) ? 0 : ms;
}

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
  #resolve?: Resolver;
  #log: (line: string) => void;
  #random: () => number;
  #maxWaiting: number;
  #maxActive: number;
  #limiter: KeyedLimiter;
  /** Folds concurrent handlers' writes into shared atomic operations. */
  #committer: GroupCommitter;
  /** `deliveryId:token` of the attempts under way; a duplicate waits, then re-checks. */
  #claimed = new Map<string, Promise<void>>();
  /** Deliveries whose attempt is under way. */
  #sending = new Set<string>();
  #running = new Set<Promise<unknown>>();
  #stopping = true;
  #sweeper: ReturnType<typeof setInterval> | null = null;
  #unsubscribe: (() => void) | null = null;
  /** Events waiting to be processed, oldest first. */
  #waiting: StoredRecordEvent[] = [];
  /** Ids of the events waiting or being processed. */
  #known = new Set<string>();
  /**
   * Ids of events settled lately, in two generations of up to MAX_RECENT each: when the newer
   * fills up, it becomes the older and the older is dropped (no per-event trimming).
   */
  #recent = new Set<string>();
  #older = new Set<string>();
  #active = 0;
  /** The youngest age an outbox scan asked for will take, or null when none is asked for. */
  #scanAge: number | null = null;
  #scanning = false;
  /** Configurations flagged `blocked`, with the event that waits (the flag goes with it). */
  #blocked = new Map<string, string>();
  #onAttempt: WebhookEngineOptions["onAttempt"];

  constructor(options: WebhookEngineOptions) {
    this.store = options.store;
    this.#kv = options.store.kv;
    this.forms = options.forms;
    this.#settings = options.settings;
    this.#blobUrl = options.blobUrl;
    this.#resolve = options.resolve;
    this.#log = options.log ?? ((line) => console.error(line));
    this.#random = options.random ?? Math.random;
    this.#onAttempt = options.onAttempt;
    this.#maxWaiting = options.maxWaiting ?? 10_000;
    this.#maxActive = options.maxActive ?? 512;
    this.#limiter = new KeyedLimiter();
    // Two commits in flight: nothing here pages by commit sequence, and a delivery has one
    // write in the committer at a time (attempts are claimed).
    this.#committer = new GroupCommitter(this.#kv, undefined, 2);
  }

  /** Registers the handler of delivery attempt messages. */
  register(dispatcher: QueueDispatcher): void {
    dispatcher.on(
      WEBHOOK_ATTEMPT_KIND,
      (m) => this.#handle(m, () => this.#attempt(m as AttemptMessage)),
    );
  }

  /** Runs a message's work; while stopping, puts the message back for the next start. */
  async #handle(message: QueueMessage, work: () => Promise<void>): Promise<void> {
    if (this.#stopping) {
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
    await this.#track(work);
  }

  /**
   * Takes announced record events from now on, and recovers what a stop may have left
   * (finishes interrupted removals, re-arms every overdue pending delivery, processes the
   * events left in the outbox); then sweeps once a minute.
   */
  async start(): Promise<void> {
    this.#stopping = false;
    this.#unsubscribe = onRecordEvents(this.#kv, (events) => this.#accept(events));
    await this.store.resumePurges();
    for await (const entry of this.#kv.list<WebhookFlagRow>({ prefix: k.flagsAll() })) {
      const { reason, eventId } = entry.value;
      if (reason === "blocked" && eventId) this.#blocked.set(String(entry.key.at(-1)), eventId);
    }
    await this.sweep(0);
    this.#sweeper = setInterval(() => {
      this.#track(() => this.sweep(SWEEP_INTERVAL_MS + this.#timeoutMs())).catch((err) =>
        this.#write("error", "Webhook sweep failed", { error: String(err) })
      );
    }, SWEEP_INTERVAL_MS);
  }

  /**
   * Stops sweeping and waits for the handlers under way; messages that arrive meanwhile are
   * put back in the queue.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    // Waiting events stay in the outbox for the next start.
    for (const { event } of this.#waiting) this.#known.delete(event.eventId);
    this.#waiting = [];
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    this.#sweeper = null;
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
    await this.#committer.idle();
  }

  #track<T>(work: () => Promise<T>): Promise<T> {
    if (this.#stopping) {
      return Promise.reject(new Error("The webhook engine is stopping; redeliver later"));
    }
    const promise = work();
    this.#running.add(promise);
    promise.finally(() => this.#running.delete(promise)).catch(() => {});
    return promise;
  }

  #timeoutMs(): number {
    return this.#settings.request_timeout_seconds * 1000;
  }

  #write(level: string, msg: string, fields: Record<string, unknown>) {
    this.#log(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
  }

  /** Takes announced events; past `maxWaiting` the outbox keeps them for a scan. */
  #accept(events: StoredRecordEvent[]): void {
    if (this.#stopping) return;
    for (const stored of events) {
      const id = stored.event.eventId;
      if (this.#known.has(id) || this.#settled(id)) continue;
      if (this.#waiting.length >= this.#maxWaiting) {
        this.#requestScan(0);
        continue;
      }
      this.#known.add(id);
      this.#waiting.push(stored);
    }
    this.#pump();
  }

  /** Asks for a scan of the outbox for events at least `minAgeMs` old. */
  #requestScan(minAgeMs: number): void {
    this.#scanAge = Math.min(this.#scanAge ?? minAgeMs, minAgeMs);
    this.#pump();
  }

  /** Starts waiting events while there is room; scans the outbox once nothing waits. */
  #pump(): void {
    while (!this.#stopping && this.#active < this.#maxActive && this.#waiting.length > 0) {
      const stored = this.#waiting.shift()!;
      const id = stored.event.eventId;
      this.#active++;
      this.#track(() => this.#processEvent(stored)).then(
        () => this.#remember(id),
        // Left in the outbox: a later sweep takes it again.
        (err) =>
          this.#write("error", "Webhook event processing failed", {
            eventId: id,
            error: String(err),
          }),
      ).finally(() => {
        this.#active--;
        this.#known.delete(id);
        this.#pump();
      });
    }
    if (
      !this.#stopping && !this.#scanning && this.#scanAge !== null && this.#waiting.length === 0
    ) {
      const minAgeMs = this.#scanAge;
      this.#scanAge = null;
      this.#scanning = true;
      this.#track(() => this.#scan(minAgeMs)).catch((err) =>
        this.#write("error", "Webhook outbox scan failed", { error: String(err) })
      ).finally(() => {
        this.#scanning = false;
        this.#pump();
      });
    }
  }

  #remember(eventId: string): void {
    this.#recent.add(eventId);
    if (this.#recent.size < MAX_RECENT) return;
    this.#older = this.#recent;
    this.#recent = new Set();
  }

  /** Whether event `eventId` was settled lately. */
  #settled(eventId: string): boolean {
    return this.#recent.has(eventId) || this.#older.has(eventId);
  }

  /**
   * Reads events of the outbox saved at least `minAgeMs` ago that are neither waiting,
   * under way nor settled lately, until `maxWaiting` wait; if it stopped there, scans again
   * once they are taken.
   */
  async #scan(minAgeMs: number): Promise<void> {
    const room = this.#maxWaiting - this.#waiting.length;
    const groups = new Map<string, Uint8Array[]>();
    let full = false;
    for await (const entry of this.#kv.list<Uint8Array>({ prefix: [RECORD_EVENTS_ROOT] })) {
      const id = entry.key[1] as string;
      const parts = groups.get(id);
      if (parts) parts.push(entry.value);
      else if (this.#known.has(id) || this.#settled(id)) continue;
      else if (groups.size >= room) {
        full = true;
        break;
      } else groups.set(id, [entry.value]);
    }
    const now = Date.now();
    const found: StoredRecordEvent[] = [];
    for (const parts of groups.values()) {
      const event = parseLargeValue<RecordEvent>(parts);
      if (now - savedAtMs(event.savedAt) >= minAgeMs) found.push({ event, parts: parts.length });
    }
    if (full && found.length > 0) this.#requestScan(minAgeMs);
    this.#accept(found);
  }

  /**
   * Makes the deliveries of one event: the first attempt of each configuration that fires
   * on it, then one atomic operation (shared with other events') records them all and
   * deletes the event from the outbox.
   */
  async #processEvent({ event, parts }: StoredRecordEvent): Promise<void> {
    const wanted = EVENT_OF[event.reason];
    const configs = (await this.store.configsOf(event.formId))
      .filter((c) => c.events.includes(wanted));
    let input: RenderInput | null = null;
    if (event.reason !== "delete" && configs.length > 0) {
      try {
        input = await resolveValues(
          event,
          await this.forms.fields(event.formId, event.schemaVersion),
          {
            blobUrl: this.#blobUrl,
            blobUrlLifetimeSeconds: this.#settings.blob_url_lifetime_seconds,
          },
        );
      } catch (err) {
        await this.#flagBlocked(configs, event, err);
        throw err; // The event stays in the outbox; the sweep takes it again.
      }
    }
    const deliveries = await Promise.all(
      configs.map((config) =>
        input ? this.#firstAttempt(event, config, input) : this.#skipped(event, config)
      ),
    );
    const created = await this.#commitDeliveries(
      event.eventId,
      deliveries,
      (op) => deleteLargeValue(op, keys.recordEvent(event.eventId), parts),
      parts,
    );
    for (const d of created) d.after?.();
    if (this.#blocked.size > 0) await this.#unflagBlocked(event.eventId);
  }

  /** Flags `configs` as blocked by `event`, which could not become deliveries (`err`). */
  async #flagBlocked(configs: WebhookConfigRow[], event: RecordEvent, err: unknown) {
    const flag: WebhookFlagRow = {
      at: new Date().toISOString(),
      deliveryId: null,
      reason: "blocked",
      eventId: event.eventId,
      status: null,
      error: `Record ${event.recordId} (event ${event.eventId}) waits, tried again every ` +
        `minute: ${err instanceof Error ? err.message : String(err)}`.slice(0, 1000),
    };
    const op = this.#kv.atomic();
    for (const config of configs) {
      op.set(k.flag(config.id), flag);
      this.#blocked.set(config.id, event.eventId);
    }
    await op.commit();
  }

  /** Clears the `blocked` flags that event `eventId` set: it went through. */
  async #unflagBlocked(eventId: string) {
    for (const [webhookId, blocking] of this.#blocked) {
      if (blocking !== eventId) continue;
      this.#blocked.delete(webhookId);
      const flag = await this.#kv.get<WebhookFlagRow>(k.flag(webhookId));
      // A failure flagged since then stays.
      if (flag.value?.reason === "blocked" && flag.value.eventId === eventId) {
        await this.#kv.atomic().check(flag).delete(flag.key).commit();
      }
    }
  }

  /**
   * Commits new deliveries in batches (folded with other events' by the group committer),
   * the last one with `finish` (the snapshot's deletion, `finishMutations` mutations); a
   * delivery that exists already (a replay) is skipped. Returns those created.
   */
  async #commitDeliveries(
    lock: string,
    deliveries: NewDelivery[],
    finish: (op: Deno.AtomicOperation) => void,
    finishMutations: number,
  ): Promise<NewDelivery[]> {
    const batches: NewDelivery[][] = [[]];
    let mutations = finishMutations;
    let bytes = 0;
    for (const d of deliveries) {
      const batch = batches[batches.length - 1];
      if (
        batch.length + 1 > BATCH.checks || mutations + d.mutations > BATCH.mutations ||
        bytes + d.bytes > BATCH.bytes
      ) {
        batches.push([]);
        mutations = finishMutations;
        bytes = 0;
      }
      batches[batches.length - 1].push(d);
      mutations += d.mutations;
      bytes += d.bytes;
    }
    const created: NewDelivery[] = [];
    for (const [index, batch] of batches.entries()) {
      const last = index === batches.length - 1;
      const { ok } = await this.#committer.commit({
        lock: `${lock}/${index}`,
        checks: batch.map((d) => ({ key: d.key, versionstamp: null })),
        apply: (op) => {
          for (const d of batch) d.apply(op);
          if (last) finish(op);
        },
        mutations: batch.reduce((n, d) => n + d.mutations, last ? finishMutations : 0),
        bytes: batch.reduce((n, d) => n + d.bytes, 0),
      });
      if (ok) {
        created.push(...batch);
        continue;
      }
      for (const d of batch) {
        const one = this.#kv.atomic().check({ key: d.key, versionstamp: null });
        d.apply(one);
        if ((await one.commit()).ok) created.push(d);
      }
      if (last) {
        const done = this.#kv.atomic();
        finish(done);
        await done.commit();
      }
    }
    return created;
  }

  #baseRow(event: RecordEvent, config: WebhookConfigRow, now: string): WebhookDeliveryRow {
    return {
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
      log: [],
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
  }

  /** A `delete` event: consumed and recorded, never sent. */
  #skipped(event: RecordEvent, config: WebhookConfigRow): NewDelivery {
    const now = new Date().toISOString();
    const row: WebhookDeliveryRow = {
      ...this.#baseRow(event, config, now),
      status: "skipped",
      completedAt: now,
    };
    return {
      key: k.delivery(config.id, row.id),
      mutations: 2,
      bytes: 1024,
      apply: (op) => {
        op.set(k.delivery(config.id, row.id), row);
        this.#setRef(op, row, null);
      },
    };
  }

  /**
   * A delivery with its body rendered now. Its first attempt, when due at once and a slot of
   * the configuration comes in time, is made here; otherwise it is scheduled.
   */
  async #firstAttempt(
    event: RecordEvent,
    config: WebhookConfigRow,
    input: RenderInput,
  ): Promise<NewDelivery> {
    const nowMs = Date.now();
    const now = new Date(nowMs).toISOString();
    const base = this.#baseRow(event, config, now);
    const { body, contentType } = renderBody(config, input);
    const bytes = utf8Encode(body);
    if (bytes.length > MAX_BODY_BYTES) {
      const error = `The body of ${bytes.length} bytes exceeds the ${MAX_BODY_BYTES}-byte limit`;
      const row: WebhookDeliveryRow = {
        ...base,
        status: "failed",
        contentType,
        lastError: error,
        completedAt: now,
      };
      const flag = {
        at: now,
        deliveryId: row.id,
        reason: "permanent",
        status: null,
        error,
      } satisfies WebhookFlagRow;
      return {
        key: k.delivery(config.id, row.id),
        mutations: 4,
        bytes: 2048,
        apply: (op) => {
          op.set(k.delivery(config.id, row.id), row);
          this.#setRef(op, row, null);
          addFailure(op, flag, config.id);
        },
      };
    }
    const row: WebhookDeliveryRow = {
      ...base,
      contentType,
      bodyParts: bytes.length <= REF_BODY_BYTES ? 0 : Math.ceil(bytes.length / BODY_PART_BYTES),
      bodyBytes: bytes.length,
    };
    const wait = nextWaitSeconds(this.#settings, 0, null, this.#random) ?? 0;
    if (wait > 0) return this.#scheduled(row, bytes, nowMs + Math.round(wait * 1000));
    const slot = await this.#limiter.acquire(config.id, this.#limitOf(config), SLOT_WAIT_MS);
    if (!slot) return this.#scheduled(row, bytes, Date.now() + DEFER_MS);
    let result: AttemptResult;
    try {
      result = await sendRequest(
        buildRequest(config, { id: row.id, body: bytes, contentType }),
        this.#sendOptions(),
      );
    } finally {
      slot();
    }
    const settled = this.#afterAttempt(row, result, false);
    return {
      key: k.delivery(config.id, row.id),
      mutations: 6 + row.bodyParts,
      bytes: bytes.length + 4096,
      apply: (op) => {
        this.#setRef(op, row, bytes);
        settled.apply(op);
      },
      after: settled.after,
    };
  }

  /**
   * A new delivery whose first attempt is a queue message due at `dueAt` (its first token:
   * a delivery attempted at once needs none until it is left pending).
   */
  #scheduled(row: WebhookDeliveryRow, body: Uint8Array, dueAt: number): NewDelivery {
    const pending = { ...row, token: newToken(), nextAttemptAt: new Date(dueAt).toISOString() };
    return {
      key: k.delivery(row.webhookId, row.id),
      mutations: 4 + row.bodyParts,
      bytes: body.length + 2048,
      apply: (op) => {
        op.set(k.delivery(row.webhookId, row.id), pending);
        this.#setRef(op, row, body);
        this.#schedule(op, pending, dueAt);
      },
    };
  }

  /**
   * Adds a new delivery's ref to `op`: its configuration, and `body` unless the row puts it
   * in parts (`row.bodyParts`; then `body` is set), with the parts.
   */
  #setRef(op: Deno.AtomicOperation, row: WebhookDeliveryRow, body: Uint8Array | null): void {
    op.set(
      k.deliveryWebhook(row.id),
      {
        webhookId: row.webhookId,
        body: row.bodyParts === 0 ? body : null,
      } satisfies WebhookDeliveryRef,
    );
    for (let i = 0; i < row.bodyParts; i++) {
      op.set(k.body(row.id, i), body!.subarray(i * BODY_PART_BYTES, (i + 1) * BODY_PART_BYTES));
    }
  }

  /** Adds the pending marker and the attempt message (`row.token`) due at `dueAt` to `op`. */
  #schedule(op: Deno.AtomicOperation, row: WebhookDeliveryRow, dueAt: number): void {
    op.set(k.pending(row.id), { webhookId: row.webhookId, dueAt } satisfies WebhookPendingRow);
    op.enqueue(
      {
        kind: WEBHOOK_ATTEMPT_KIND,
        webhookId: row.webhookId,
        deliveryId: row.id,
        token: row.token,
      } satisfies AttemptMessage,
      { delay: Math.max(0, dueAt - Date.now()) },
    );
  }

  /** Requests `config` may have in flight: its own limit, else the instance's. */
  #limitOf(config: WebhookConfigRow): number {
    return config.concurrency ?? this.#settings.concurrency_per_webhook;
  }

  #sendOptions() {
    return {
      timeoutMs: this.#timeoutMs(),
      blockPrivateNetworks: this.#settings.block_private_networks,
      resolve: this.#resolve,
    };
  }

  /**
   * Makes the attempt `message` names, if its delivery still waits for it.
   */
  async #attempt(message: AttemptMessage): Promise<void> {
    const { webhookId, deliveryId, token } = message;
    const release = await this.#claim(`${deliveryId}:${token}`);
    try {
      const key = k.delivery(webhookId, deliveryId);
      const read = await this.#kv.get<WebhookDeliveryRow>(key);
      if (!read.value || read.value.status !== "pending" || read.value.token !== token) return;
      const entry = read as Deno.KvEntry<WebhookDeliveryRow>;
      const body = await this.store.body(read.value);
      const config = await this.store.config(webhookId);
      if (!config) {
        await this.store.purgeDelivery(entry);
        return;
      }
      const slot = await this.#limiter.acquire(webhookId, this.#limitOf(config), SLOT_WAIT_MS);
      if (!slot) {
        await this.#kv.enqueue(message, { delay: DEFER_MS });
        return;
      }
      this.#sending.add(deliveryId);
      try {
        const request = buildRequest(config, {
          id: deliveryId,
          body,
          contentType: entry.value.contentType,
        });
        let result: AttemptResult;
        try {
          result = await sendRequest(request, this.#sendOptions());
        } finally {
          slot(); // The limit is on requests in flight; recording the outcome needs no slot.
        }
        await this.#record(entry, result);
      } finally {
        this.#sending.delete(deliveryId);
      }
    } finally {
      release();
    }
  }

  /** Waits for any attempt under `claim` to finish, then holds it; returns the release. */
  async #claim(claim: string): Promise<() => void> {
    for (let held = this.#claimed.get(claim); held; held = this.#claimed.get(claim)) await held;
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#claimed.set(claim, promise);
    return () => {
      this.#claimed.delete(claim);
      resolve();
    };
  }

  /** Logs an attempt and moves its delivery on, in one atomic operation. */
  async #record(entry: Deno.KvEntry<WebhookDeliveryRow>, result: AttemptResult): Promise<void> {
    const settled = this.#afterAttempt(entry.value, result, true);
    const { ok } = await this.#committer.commit({
      lock: entry.value.id,
      checks: [entry],
      apply: settled.apply,
      mutations: 6,
      bytes: 4096,
    });
    if (ok) settled.after();
    else {
      this.#write("warn", "Webhook delivery changed during its attempt; attempt not recorded", {
        webhookId: entry.value.webhookId,
        deliveryId: entry.value.id,
      });
    }
  }

  /**
   * What attempt `result` makes of delivery `row`: the mutations that log the attempt and
   * write the next state (delivered; failed and flagged; or pending with the next attempt's
   * message), and what to do once they are committed. `stored`: the row is in the store
   * already (else no pending marker of it can exist to delete).
   */
  #afterAttempt(
    row: WebhookDeliveryRow,
    result: AttemptResult,
    stored: boolean,
  ): { apply(op: Deno.AtomicOperation): void; after(): void } {
    this.#onAttempt?.(result.outcome);
    const nowMs = Date.now();
    const now = new Date(nowMs).toISOString();
    const n = row.attempts + 1;
    const attempt: WebhookAttemptRow = {
      n,
      at: result.at,
      status: result.status,
      durationMs: result.durationMs,
      outcome: result.outcome,
      error: result.error,
      snippet: result.snippet,
      retryAfterSeconds: result.retryAfterSeconds,
    };
    const next: WebhookDeliveryRow = {
      ...row,
      attempts: n,
      lastAttemptAt: result.at,
      lastStatus: result.status,
      lastError: result.error,
      lastSnippet: result.snippet,
      log: [...row.log, attempt].slice(-MAX_LOGGED_ATTEMPTS),
      updatedAt: now,
    };
    const wait = result.outcome === "transient"
      ? nextWaitSeconds(this.#settings, row.round + 1, result.retryAfterSeconds, this.#random)
      : null;
    const failure: WebhookFlagRow["reason"] | null = result.outcome === "delivered" ||
        wait !== null
      ? null
      : result.outcome === "permanent"
      ? "permanent"
      : "exhausted";
    let dueAt = 0;
    if (result.outcome === "delivered") {
      Object.assign(next, { status: "delivered", nextAttemptAt: null, completedAt: now });
    } else if (failure) {
      Object.assign(next, { status: "failed", nextAttemptAt: null, completedAt: now });
    } else {
      dueAt = nowMs + Math.round(wait! * 1000);
      Object.assign(next, {
        round: row.round + 1,
        token: newToken(),
        nextAttemptAt: new Date(dueAt).toISOString(),
      });
    }
    return {
      apply: (op) => {
        op.set(k.delivery(row.webhookId, row.id), next);
        if (next.status === "pending") this.#schedule(op, next, dueAt);
        else if (stored) op.delete(k.pending(row.id));
        if (failure) {
          const flag = {
            at: now,
            deliveryId: row.id,
            reason: failure,
            status: result.status,
            error: result.error,
          } satisfies WebhookFlagRow;
          addFailure(op, flag, row.webhookId);
        }
      },
      after: () => {
        if (!failure) return;
        this.#write("warn", "Webhook delivery failed", {
          webhookId: row.webhookId,
          deliveryId: row.id,
          reason: failure,
          status: result.status,
          attempts: n,
        });
      },
    };
  }

  /**
   * Puts a delivery back in line for an immediate attempt with a new token (older messages
   * become stale). `manual`: the owner's retry, which restarts the schedule and clears the
   * failure flag. False when the delivery changed meanwhile.
   */
  async #rearm(entry: Deno.KvEntry<WebhookDeliveryRow>, manual: boolean): Promise<boolean> {
    const row = entry.value;
    const nowMs = Date.now();
    const now = new Date(nowMs).toISOString();
    const next: WebhookDeliveryRow = {
      ...row,
      status: "pending",
      round: manual ? 0 : row.round,
      token: newToken(),
      nextAttemptAt: now,
      completedAt: null,
      updatedAt: now,
    };
    const op = this.#kv.atomic().check(entry).set(k.delivery(row.webhookId, row.id), next);
    this.#schedule(op, next, nowMs);
    if (manual) op.delete(k.failed(row.webhookId, row.id)).delete(k.flag(row.webhookId));
    return (await op.commit()).ok;
  }

  /**
   * The owner's retry of one delivery: a new attempt now, a fresh schedule, the
   * configuration's flag cleared. A delivered one is sent again.
   *
   * @throws {ApiError} 409 for a skipped (delete) delivery, one being sent right now, or one
   * that changed meanwhile.
   */
  async retry(entry: Deno.KvEntry<WebhookDeliveryRow>): Promise<void> {
    const row = entry.value;
    if (row.status === "skipped") {
      throw new ApiError(
        409,
        "delivery_skipped",
        `Delivery "${row.id}" is a delete event: no HTTP call is made for it`,
      );
    }
    if (this.#sending.has(row.id)) {
      throw new ApiError(409, "delivery_in_flight", `Delivery "${row.id}" is being sent now`);
    }
    if (!await this.#rearm(entry, true)) {
      throw new ApiError(409, "conflict", `Delivery "${row.id}" changed meanwhile; try again`);
    }
  }

  /** The owner's retry of every failed delivery of `webhookId`; returns how many. */
  async retryFailed(webhookId: string): Promise<number> {
    let count = 0;
    for (const id of await this.store.failedIds(webhookId)) {
      const entry = await this.#kv.get<WebhookDeliveryRow>(k.delivery(webhookId, id));
      if (entry.value?.status === "failed" && !this.#sending.has(id)) {
        if (await this.#rearm(entry as Deno.KvEntry<WebhookDeliveryRow>, true)) count++;
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
    const now = Date.now();
    let rearmed = 0;
    for await (const entry of this.#kv.list<WebhookPendingRow>({ prefix: k.pendingAll() })) {
      const id = entry.key[entry.key.length - 1] as string;
      if (this.#sending.has(id) || entry.value.dueAt + graceMs >= now) continue;
      const delivery = await this.#kv.get<WebhookDeliveryRow>(
        k.delivery(entry.value.webhookId, id),
      );
      if (delivery.value?.status === "pending") {
        if (await this.#rearm(delivery as Deno.KvEntry<WebhookDeliveryRow>, false)) rearmed++;
      } else {
        await this.#kv.atomic().check(entry).delete(entry.key).commit();
      }
    }
    // Events announced but never settled (or never announced) are taken from the outbox.
    this.#requestScan(graceMs);
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
    const result = await sendRequest(request, this.#sendOptions());
    return { contentType, body, result };
  }
}
