/**
 * The webhooks port: outbound configurations with their failure flags
 * ({@linkcode WebhookConfigs}), and deliveries with their attempts and their schedule
 * ({@linkcode WebhookDeliveries}). Domain types only; each method says what it guarantees, so
 * that any store (Deno KV today, PostgreSQL next) can implement it and run the same contract
 * suite (`tests/store/contract/webhooks.ts`).
 *
 * @module
 */

import type { WritePart } from "./write_part.ts";
import type { RecordEventOutbox } from "./record_events.ts";

/** The body format of a webhook configuration. */
export type WebhookMode = "default" | "json_template" | "xml_template" | "form";

/** A record event kind an outbound configuration can fire on. */
export type WebhookEvent = "create" | "update" | "delete";

/** An outbound webhook configuration of a form (secrets in clear: owner-side store only). */
export interface WebhookConfig {
  id: string;
  formId: string;
  name: string;
  url: string;
  method: "POST" | "PUT" | "PATCH";
  mode: WebhookMode;
  /** The owner's template (template modes only). */
  template: string | null;
  bearer: string | null;
  /** Custom headers, in the order configured. */
  headers: [name: string, value: string][];
  signingSecret: string | null;
  signatureHeader: string;
  /** Record field id to target key, in the order configured; empty means every field. */
  mappings: Record<string, string>;
  events: WebhookEvent[];
  /** Also send Standard Webhooks headers (needs a `whsec_` signing secret). */
  standardWebhooks: boolean;
  /** Requests in flight at once (1 to 64); null: the instance's `webhooks.concurrency_per_webhook`. */
  concurrency: number | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * The flag a configuration carries after a failure, until edited or retried; a `blocked` one
 * also clears itself once the configuration's events go through again.
 */
export interface WebhookFlag {
  /** When the latest failure happened. */
  at: string;
  /** The failed delivery; null when `blocked` (no delivery could be made yet). */
  deliveryId: string | null;
  /**
   * `permanent`: a 4xx or a refused address; `exhausted`: the retry schedule ran out;
   * `blocked`: an event could not become a delivery (its file URLs could not be made, e.g. the
   * relay refused the vault's token) and waits in the outbox, tried again every minute.
   */
  reason: "permanent" | "exhausted" | "blocked";
  /** When `blocked`: the event that waits (the flag goes once it goes through). */
  eventId?: string;
  status: number | null;
  error: string | null;
}

/** Where a delivery stands. */
export type WebhookDeliveryStatus = "pending" | "delivered" | "failed" | "skipped";

/** One record event going to one configuration; its body is rendered once, at creation. */
export interface WebhookDelivery {
  id: string;
  webhookId: string;
  formId: string;
  eventId: string;
  recordId: string;
  reason: "insert" | "update" | "delete";
  savedAt: string;
  status: WebhookDeliveryStatus;
  contentType: string;
  /** Parts of a body too large for the ref under `webhookKeys.body` (0 otherwise). */
  bodyParts: number;
  bodyBytes: number;
  /** Attempts made so far, over every round (each logged under `webhookKeys.attempt`). */
  attempts: number;
  /** Index in the retry schedule of the next attempt (a manual retry starts over at 0). */
  round: number;
  /** Names the one attempt message that may act on this delivery; stale messages are dropped. */
  token: string;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  lastSnippet: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

/** The log of one HTTP attempt of a delivery. */
export interface WebhookAttempt {
  /** 1-based attempt number. */
  n: number;
  at: string;
  status: number | null;
  durationMs: number;
  outcome: "delivered" | "transient" | "permanent";
  error: string | null;
  /** At most 200 characters of the response body, newlines collapsed. */
  snippet: string | null;
  /** Wait asked for by a Retry-After header, in seconds. */
  retryAfterSeconds: number | null;
}

/** Attempt rows a delivery keeps: the newest; older ones go as new ones come. */
export const MAX_LOGGED_ATTEMPTS = 50;

/** A page cursor the list did not give out (a client's, mangled or from another list). */
export class InvalidCursorError extends Error {
  override name = "InvalidCursorError";
  constructor() {
    super("The cursor is not one this list gave out");
  }
}

declare const revisionBrand: unique symbol;

/**
 * Which version of a delivery was read: opaque, only handed back to a conditional write
 * (which succeeds only if the delivery is still that version).
 */
export type DeliveryRevision = string & { readonly [revisionBrand]: true };

/** A delivery as read, with its revision. */
export interface StoredDelivery {
  row: WebhookDelivery;
  revision: DeliveryRevision;
}

/** A delivery whose scheduled attempt came due, with the body to send. */
export interface DueDelivery extends StoredDelivery {
  body: Uint8Array;
}

/** A page of deliveries, newest first; `nextCursor` (opaque) reads the next one. */
export interface DeliveryPage {
  items: WebhookDelivery[];
  nextCursor: string | null;
}

/** The attempt of a delivery that a schedule made due: only the holder of `token` may act. */
export interface ScheduledAttempt {
  webhookId: string;
  deliveryId: string;
  token: string;
}

/**
 * One step of a delivery, written as one atomic unit: its new state and what goes with it.
 */
export interface DeliveryChange {
  /** The delivery's new row (replaces the stored one). */
  state: WebhookDelivery;
  /** An attempt made: its own row, number `attempt.n`, written once. */
  attempt?: WebhookAttempt;
  /**
   * `{ dueAt }`: the next attempt, carrying `state.token`, comes due at `dueAt` (epoch ms) and
   * the delivery is listed as scheduled; `null`: nothing is scheduled any more.
   */
  schedule?: { dueAt: number } | null;
  /**
   * `{ flag }`: listed among its configuration's failed deliveries, and the configuration
   * flagged; `"clear"`: unlisted, and the configuration's flag cleared.
   */
  failure?: { flag: WebhookFlag } | "clear";
}

/**
 * Webhook configurations (each belongs to one form) and their failure flags.
 *
 * @example
 * ```ts
 * if (!await configs.createConfig(row)) throw new Error("id taken");
 * const rows = await configs.configsOf(row.formId);
 * ```
 */
export interface WebhookConfigs {
  /** The configurations of form `formId`, oldest first (by `createdAt`). */
  configsOf(formId: string): Promise<WebhookConfig[]>;
  /** Configuration `webhookId`, or null. */
  config(webhookId: string): Promise<WebhookConfig | null>;
  /**
   * Stores a new configuration; false (nothing written) when its id is taken.
   *
   * @throws {WriteTooLargeError} when the row is over what the store holds in one row.
   */
  createConfig(row: WebhookConfig): Promise<boolean>;
  /**
   * Replaces `before` by `after` (same id) and clears its failure flag, atomically; false
   * (nothing written) when the stored configuration is no longer `before` (by `updatedAt`).
   *
   * @throws {WriteTooLargeError} as {@linkcode WebhookConfigs.createConfig}.
   */
  updateConfig(before: WebhookConfig, after: WebhookConfig): Promise<boolean>;
  /**
   * Removes a configuration with its flag at once (it is gone for every read from then on),
   * then its deliveries with their bodies, attempts and schedules. A stop in between leaves
   * the rest to {@linkcode WebhookConfigs.resumeRemovals}.
   */
  removeConfig(row: WebhookConfig): Promise<void>;
  /** Finishes the removals a stop interrupted (on start). */
  resumeRemovals(): Promise<void>;

  /** The failure flag of `webhookId`, or null. */
  flag(webhookId: string): Promise<WebhookFlag | null>;
  /** The flags of `webhookIds`, by id (those without a flag are absent). */
  flags(webhookIds: string[]): Promise<Map<string, WebhookFlag>>;
  /** Clears the flag of `webhookId` (idempotent). */
  clearFlag(webhookId: string): Promise<void>;
  /** Flags each of `webhookIds` with `flag` (a `blocked` one), atomically. */
  flagBlocked(webhookIds: string[], flag: WebhookFlag): Promise<void>;
  /**
   * Clears the flag of `webhookId` only if it is still the `blocked` flag of event `eventId`
   * (a failure flagged since stays); atomic with that check.
   */
  unflagBlocked(webhookId: string, eventId: string): Promise<void>;
  /** Every configuration flagged `blocked`, with the event it waits for. */
  blockedFlags(): Promise<Map<string, string>>;
}

/**
 * Deliveries (one record event going to one configuration), their attempts and their
 * schedule. Writes of one delivery are serialised by the caller or refused by revision;
 * writes of different deliveries may be batched together by the store, never delayed by each
 * other's failure.
 *
 * @example
 * ```ts
 * const stored = await deliveries.due(attempt);
 * if (stored && await deliveries.updateDelivery(stored, { state, attempt: row })) done();
 * ```
 */
export interface WebhookDeliveries {
  /** Delivery `deliveryId` with its revision, or null. */
  delivery(deliveryId: string): Promise<StoredDelivery | null>;
  /**
   * The delivery `attempt` names with its body (read together), if it is still pending with
   * the attempt's token; else null.
   */
  due(attempt: ScheduledAttempt): Promise<DueDelivery | null>;
  /**
   * A page of the deliveries of `webhookId`, newest first (ids sort by the record's save
   * time); only those listed as failed when `failed`.
   *
   * @throws {InvalidCursorError} when `cursor` is not one this list gave out.
   */
  deliveries(
    webhookId: string,
    options: { failed?: boolean; cursor?: string; limit: number },
  ): Promise<DeliveryPage>;
  /** The ids of every delivery of `webhookId` listed as failed. */
  failedIds(webhookId: string): Promise<string[]>;
  /** The body of delivery `row` as created (empty when none was kept). */
  body(row: WebhookDelivery): Promise<Uint8Array>;
  /** The attempts of delivery `deliveryId` (at most the newest 50), oldest first. */
  attempts(deliveryId: string): Promise<WebhookAttempt[]>;

  /**
   * Creates a delivery from `change` with its `body` (null: none kept), together with `also`
   * (e.g. the removal of its record event) in one atomic write. False, with nothing written
   * (`also` neither), when a delivery with that id exists: a replayed event creates nothing
   * twice.
   */
  createDelivery(
    change: DeliveryChange,
    body: Uint8Array | null,
    also?: WritePart,
  ): Promise<boolean>;
  /**
   * Writes `change` on delivery `before` atomically, if it is still that revision (else
   * false, nothing written). A schedule written here comes due even after a crash.
   */
  updateDelivery(before: StoredDelivery, change: DeliveryChange): Promise<boolean>;
  /**
   * Deletes delivery `before` with its body, attempts, schedule and failure listing, if it is
   * still that revision; false otherwise.
   */
  purgeDelivery(before: StoredDelivery): Promise<boolean>;

  /**
   * The deliveries scheduled before `dueBefore` (epoch ms) and still pending: their attempt
   * is overdue. Stale listings (the delivery no longer pending) are dropped on the way.
   */
  overdue(dueBefore: number): AsyncIterable<StoredDelivery>;
  /**
   * How many deliveries are pending with an attempt scheduled, and how many are listed as
   * failed, each counted up to `cap` (bounded work whatever the backlog; for the metrics).
   */
  countByState(cap: number): Promise<{ pending: number; failed: number }>;
  /**
   * Calls `handler` with each scheduled attempt as it comes due, at least once (also after a
   * restart); one that throws comes again later. One handler per store.
   */
  onDue(handler: (attempt: ScheduledAttempt) => Promise<void>): void;
  /** Makes `attempt` come due again in `delayMs` (the delivery's state is not changed). */
  redeliver(attempt: ScheduledAttempt, delayMs: number): Promise<void>;
  /** Resolves once every write queued so far is durable. */
  idle(): Promise<void>;
}

/** The webhook ports of one store, as the engine takes them. */
export interface WebhookPorts {
  /** Configurations and their failure flags. */
  webhooks: WebhookConfigs;
  deliveries: WebhookDeliveries;
  /** The record events outbox, as its consumer sees it. */
  recordEvents: RecordEventOutbox;
}
