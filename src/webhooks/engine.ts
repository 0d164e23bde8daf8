/**
 * The delivery engine, on the Deno KV queue.
 *
 * A `record_event` message becomes one delivery per configuration of the form that fires on
 * the event: its body rendered once, its state, and its first attempt message, written in one
 * atomic operation. Each attempt sends the stored body, logs the attempt, and in one atomic
 * operation writes the new state with the next attempt message (`delay` = schedule + jitter,
 * raised by Retry-After), or marks the delivery delivered or failed. A failure flags its
 * configuration for the owner until the configuration is edited or retried.
 *
 * A first attempt due at once is made by the handler that created the delivery, without
 * waiting for its message (one queue hop less); the message, when it comes, waits for that
 * attempt and finds nothing left to do. Writes of concurrent handlers share atomic
 * operations (group commit).
 *
 * At least once: the state is in KV before any message that acts on it; a message names the
 * state it expects (a token), so stale or duplicate messages do nothing; sweeps re-arm a
 * pending delivery whose message went missing (and finish record events never processed).
 * Deno KV's own redelivery schedule is never relied on.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import type { Config } from "../config/index.ts";
import { utf8Encode } from "../crypto/encoding.ts";
import { RECORD_EVENT_KIND, type RecordEvent } from "../events/record_event.ts";
import { ApiError } from "../http/errors.ts";
import {
  keys,
  type WebhookAttemptRow,
  type WebhookConfigRow,
  type WebhookDeliveryRow,
  type WebhookEvent,
  type WebhookFlagRow,
  webhookKeys as k,
  type WebhookPendingRow,
} from "../store/keys.ts";
import { deleteLargeValue, getLargeValue, MAX_LARGE_VALUE_BYTES } from "../store/large_value.ts";
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
  /** Randomness of the jitter (default `Math.random`). */
  random?: () => number;
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
  /** For a first attempt due now: what the creating handler needs to make it at once. */
  inline?: { body: Uint8Array; message: AttemptMessage };
}

const EVENT_OF: Record<RecordEvent["reason"], WebhookEvent> = {
  insert: "create",
  update: "update",
  delete: "delete",
};

/** Bytes per body part, under Deno KV's 64 KiB value limit. */
const BODY_PART_BYTES = 60 * 1024;
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
/** The root of the record event snapshots (`keys.recordEvent(id)` is `[root, id]`). */
const RECORD_EVENTS_ROOT = keys.recordEvent("")[0];

const newToken = () => crypto.getRandomValues(new Uint8Array(8)).toHex();

/**
 * The id of the delivery of event `eventId` to configuration `webhookId`: the same on every
 * replay of the event (idempotent creation), ordered by the record's save time.
 */
function deliveryIdOf(event: RecordEvent, webhookId: string): string {
  const ms = Date.parse(`${event.savedAt.slice(0, 23)}Z`);
  const time = (Number.isNaN(ms) ? 0 : ms).toString(16).padStart(12, "0");
  return time + sha256(utf8Encode(`${event.eventId}/${webhookId}`)).toHex().slice(0, 20);
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
  #limiter: KeyedLimiter;
  /** Folds concurrent handlers' writes into shared atomic operations. */
  #committer: GroupCommitter;
  /** `deliveryId:token` of the attempts under way; a duplicate waits, then re-checks. */
  #claimed = new Map<string, Promise<void>>();
  /** Deliveries whose attempt is under way. */
  #sending = new Set<string>();
  #running = new Set<Promise<unknown>>();
  #stopping = false;
  #sweeper: ReturnType<typeof setInterval> | null = null;

  constructor(options: WebhookEngineOptions) {
    this.store = options.store;
    this.#kv = options.store.kv;
    this.forms = options.forms;
    this.#settings = options.settings;
    this.#blobUrl = options.blobUrl;
    this.#resolve = options.resolve;
    this.#log = options.log ?? ((line) => console.error(line));
    this.#random = options.random ?? Math.random;
    this.#limiter = new KeyedLimiter(options.settings.concurrency_per_webhook);
    this.#committer = new GroupCommitter(this.#kv);
  }

  /** Registers the handlers of record events and delivery attempts. */
  register(dispatcher: QueueDispatcher): void {
    dispatcher.on(RECORD_EVENT_KIND, (m) =>
      this.#handle(m, async () => {
        await this.processEvent(String(m.eventId), Number(m.parts));
      }));
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
   * Recovers what a stop may have left (re-arms every overdue pending delivery, processes
   * leftover record events, finishes interrupted removals), then sweeps once a minute.
   */
  async start(): Promise<void> {
    this.#stopping = false;
    await this.store.resumePurges();
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

  /**
   * Turns record event `eventId` into deliveries (idempotent), then deletes its snapshot.
   * `minAgeMs` skips events saved more recently (their message is still on its way).
   * Returns the number of deliveries created.
   */
  async processEvent(eventId: string, parts?: number, minAgeMs = 0): Promise<number> {
    const snapshot = keys.recordEvent(eventId);
    const event = await getLargeValue<RecordEvent>(this.#kv, snapshot);
    if (!event) return 0;
    if (minAgeMs > 0 && Date.now() - Date.parse(`${event.savedAt.slice(0, 23)}Z`) < minAgeMs) {
      return 0;
    }
    const wanted = EVENT_OF[event.reason];
    const configs = (await this.store.configsOf(event.formId))
      .filter((c) => c.events.includes(wanted));
    const deliveries: NewDelivery[] = [];
    let input: RenderInput | null = null;
    for (const config of configs) {
      if (event.reason === "delete") {
        deliveries.push(this.#skipped(event, config));
        continue;
      }
      input ??= await resolveValues(
        event,
        await this.forms.fields(event.formId, event.schemaVersion),
        {
          blobUrl: this.#blobUrl,
          blobUrlLifetimeSeconds: this.#settings.blob_url_lifetime_seconds,
        },
      );
      deliveries.push(this.#pending(event, config, input));
    }
    let partCount = parts;
    if (partCount === undefined || !Number.isInteger(partCount) || partCount < 1) {
      partCount = 0;
      for await (const _ of this.#kv.list({ prefix: snapshot })) partCount++;
    }
    const created = await this.#commitDeliveries(
      eventId,
      deliveries,
      (op) => deleteLargeValue(op, snapshot, partCount),
      partCount,
    );
    await Promise.all(
      created.flatMap((d) => d.inline ? [this.#attempt(d.inline.message, d.inline.body)] : []),
    );
    return created.length;
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
        op.set(k.deliveryWebhook(row.id), config.id);
      },
    };
  }

  /** A delivery with its body rendered now, and its first attempt message. */
  #pending(event: RecordEvent, config: WebhookConfigRow, input: RenderInput): NewDelivery {
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
      const flag: WebhookFlagRow = {
        at: now,
        deliveryId: row.id,
        reason: "permanent",
        status: null,
        error,
      };
      return {
        key: k.delivery(config.id, row.id),
        mutations: 4,
        bytes: 2048,
        apply: (op) => {
          op.set(k.delivery(config.id, row.id), row);
          op.set(k.deliveryWebhook(row.id), config.id);
          op.set(k.failed(config.id, row.id), true);
          op.set(k.flag(config.id), flag);
        },
      };
    }
    const wait = nextWaitSeconds(this.#settings, 0, null, this.#random) ?? 0;
    const dueAt = nowMs + Math.round(wait * 1000);
    // Due now: the handler that creates the delivery makes the attempt at once; its message,
    // arriving meanwhile, waits for that attempt and then finds nothing to do (it stays the
    // durable guarantee should the process stop before the attempt is recorded).
    const immediate = wait === 0;
    const parts = Math.max(1, Math.ceil(bytes.length / BODY_PART_BYTES));
    const row: WebhookDeliveryRow = {
      ...base,
      contentType,
      bodyParts: parts,
      bodyBytes: bytes.length,
      token: newToken(),
      nextAttemptAt: new Date(dueAt).toISOString(),
    };
    const message: AttemptMessage = {
      kind: WEBHOOK_ATTEMPT_KIND,
      webhookId: config.id,
      deliveryId: row.id,
      token: row.token,
    };
    return {
      key: k.delivery(config.id, row.id),
      mutations: 4 + parts,
      bytes: bytes.length + 2048,
      apply: (op) => {
        op.set(k.delivery(config.id, row.id), row);
        op.set(k.deliveryWebhook(row.id), config.id);
        for (let i = 0; i < parts; i++) {
          op.set(k.body(row.id, i), bytes.subarray(i * BODY_PART_BYTES, (i + 1) * BODY_PART_BYTES));
        }
        op.set(
          k.pending(row.id),
          { webhookId: config.id, dueAt } satisfies WebhookPendingRow,
        );
        op.enqueue(message, { delay: dueAt - nowMs });
      },
      inline: immediate ? { body: bytes, message } : undefined,
    };
  }

  /**
   * Makes the attempt `message` names, if its delivery still waits for it. `knownBody` is
   * the body as just written (an inline first attempt: only the state is read).
   */
  async #attempt(message: AttemptMessage, knownBody?: Uint8Array): Promise<void> {
    const { webhookId, deliveryId, token } = message;
    const release = await this.#claim(`${deliveryId}:${token}`);
    try {
      const key = k.delivery(webhookId, deliveryId);
      const [read, first] = knownBody
        ? [await this.#kv.get<WebhookDeliveryRow>(key), null]
        : await this.#kv.getMany<[WebhookDeliveryRow, Uint8Array]>([key, k.body(deliveryId, 0)]);
      if (!read.value || read.value.status !== "pending" || read.value.token !== token) return;
      const entry = read as Deno.KvEntry<WebhookDeliveryRow>;
      const body = knownBody ?? await this.store.body(read.value, first?.value);
      const config = await this.store.config(webhookId);
      if (!config) {
        await this.store.purgeDelivery(entry);
        return;
      }
      const slot = await this.#limiter.acquire(webhookId, SLOT_WAIT_MS);
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
          result = await sendRequest(request, {
            timeoutMs: this.#timeoutMs(),
            blockPrivateNetworks: this.#settings.block_private_networks,
            resolve: this.#resolve,
          });
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
    const row = entry.value;
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
      updatedAt: now,
    };
    const steps: ((op: Deno.AtomicOperation) => void)[] = [
      (op) => op.set(k.attempt(row.id, n), attempt),
    ];
    let failure: WebhookFlagRow["reason"] | null = null;
    const wait = result.outcome === "transient"
      ? nextWaitSeconds(this.#settings, row.round + 1, result.retryAfterSeconds, this.#random)
      : null;
    if (result.outcome === "delivered") {
      Object.assign(next, { status: "delivered", nextAttemptAt: null, completedAt: now });
      steps.push((op) => op.delete(k.pending(row.id)));
    } else if (wait === null) {
      failure = result.outcome === "permanent" ? "permanent" : "exhausted";
      Object.assign(next, { status: "failed", nextAttemptAt: null, completedAt: now });
      const flag: WebhookFlagRow = {
        at: now,
        deliveryId: row.id,
        reason: failure,
        status: result.status,
        error: result.error,
      };
      steps.push((op) =>
        op.delete(k.pending(row.id)).set(k.failed(row.webhookId, row.id), true)
          .set(k.flag(row.webhookId), flag)
      );
    } else {
      const dueAt = nowMs + Math.round(wait * 1000);
      Object.assign(next, {
        round: row.round + 1,
        token: newToken(),
        nextAttemptAt: new Date(dueAt).toISOString(),
      });
      const message: AttemptMessage = {
        kind: WEBHOOK_ATTEMPT_KIND,
        webhookId: row.webhookId,
        deliveryId: row.id,
        token: next.token,
      };
      steps.push((op) =>
        op.set(k.pending(row.id), { webhookId: row.webhookId, dueAt } satisfies WebhookPendingRow)
          .enqueue(message, { delay: dueAt - nowMs })
      );
    }
    steps.push((op) => op.set(k.delivery(row.webhookId, row.id), next));
    const { ok } = await this.#committer.commit({
      lock: row.id,
      checks: [entry],
      apply: (op) => steps.forEach((step) => step(op)),
      mutations: 6,
      bytes: 4096,
    });
    if (!ok) {
      this.#write("warn", "Webhook delivery changed during its attempt; attempt not recorded", {
        webhookId: row.webhookId,
        deliveryId: row.id,
      });
      return;
    }
    if (failure) {
      this.#write("warn", "Webhook delivery failed", {
        webhookId: row.webhookId,
        deliveryId: row.id,
        reason: failure,
        status: result.status,
        attempts: n,
      });
    }
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
    const op = this.#kv.atomic().check(entry)
      .set(k.delivery(row.webhookId, row.id), next)
      .set(
        k.pending(row.id),
        { webhookId: row.webhookId, dueAt: nowMs } satisfies WebhookPendingRow,
      )
      .enqueue(
        {
          kind: WEBHOOK_ATTEMPT_KIND,
          webhookId: row.webhookId,
          deliveryId: row.id,
          token: next.token,
        } satisfies AttemptMessage,
      );
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
   * 0 on start, when nothing is under way) and processes record events older than
   * `graceMs` still waiting. Returns how many deliveries it re-armed.
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
    // After the re-arming, so the deliveries these events create are not re-armed at once.
    const events = new Map<string, number>();
    for await (const entry of this.#kv.list({ prefix: [RECORD_EVENTS_ROOT] })) {
      const id = entry.key[1] as string;
      events.set(id, (events.get(id) ?? 0) + 1);
    }
    for (const [id, parts] of events) {
      // Not awaited: their first attempts are made at once, bounded by the per-webhook limit.
      this.#track(() => this.processEvent(id, parts, graceMs)).catch((err) =>
        this.#write("error", "Webhook event processing failed", { eventId: id, error: String(err) })
      );
    }
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
    const result = await sendRequest(request, {
      timeoutMs: this.#timeoutMs(),
      blockPrivateNetworks: this.#settings.block_private_networks,
      resolve: this.#resolve,
    });
    return { contentType, body, result };
  }
}
