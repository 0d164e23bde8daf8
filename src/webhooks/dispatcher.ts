/**
 * The dispatcher: makes attempts. A new delivery's first attempt is made at once when the
 * schedule says so and a slot of its configuration comes in time; a later attempt comes due
 * from the store's schedule, naming the delivery and its token (stale or duplicate ones do
 * nothing).
 * Each result goes through the delivery's transition, and the new state is committed with its
 * effects. Each configuration has its own slots, and each delivery its own commit: no
 * delivery waits for another's.
 *
 * @module
 */
import type {
  DeliveryChange,
  ScheduledAttempt,
  WebhookConfig,
  WebhookConfigs,
  WebhookDeliveries,
  WebhookDelivery,
} from "../store/ports/webhooks.ts";
import type { Resolver } from "./guard.ts";
import type { Lifecycle } from "./lifecycle.ts";
import { KeyedLimiter } from "./limiter.ts";
import { buildRequest } from "./request.ts";
import { changeOf } from "./scheduler.ts";
import { type AttemptResult, type SendOptions, sendRequest } from "./send.ts";
import {
  type DeliveryEffect,
  type DeliveryInput,
  transition,
  type TransitionContext,
} from "./transition.ts";
import type { Config } from "../config/index.ts";

/** The `webhooks` section of the configuration. */
export type WebhookSettings = Config["webhooks"];

/** How long an attempt waits for a slot of its configuration before coming back later. */
const SLOT_WAIT_MS = 2_000;
/** When it comes back. */
const DEFER_MS = 1_000;

/** What the dispatcher needs. */
export interface DispatcherOptions {
  configs: WebhookConfigs;
  deliveries: WebhookDeliveries;
  life: Lifecycle;
  settings: WebhookSettings;
  resolve?: Resolver;
  random: () => number;
  onAttempt?: (outcome: AttemptResult["outcome"]) => void;
}

/** A new delivery's write, and what to do once it is committed. */
export interface NewDelivery {
  change: DeliveryChange;
  /** The body to keep (null: none, the delivery is done with). */
  body: Uint8Array | null;
  after(): void;
}

const newToken = () => crypto.getRandomValues(new Uint8Array(8)).toHex();

/**
 * Makes delivery attempts.
 *
 * @example
 * ```ts
 * const dispatcher = new Dispatcher({ configs, deliveries, life, settings, random: Math.random });
 * const created = await dispatcher.first(config, row, body, maxBodyBytes); // write, then after()
 * ```
 */
export class Dispatcher {
  /** Deliveries whose attempt is under way. */
  readonly sending = new Set<string>();
  #limiter = new KeyedLimiter();
  /** `deliveryId:token` of the scheduled attempts under way; a duplicate waits, then re-checks. */
  #claimed = new Map<string, Promise<void>>();

  constructor(private options: DispatcherOptions) {}

  /** The transition context of now. */
  context(): TransitionContext {
    return {
      now: Date.now(),
      settings: this.options.settings,
      random: this.options.random,
      token: newToken,
    };
  }

  /** Options of every request. */
  sendOptions(): SendOptions {
    return {
      timeoutMs: this.options.settings.request_timeout_seconds * 1000,
      blockPrivateNetworks: this.options.settings.block_private_networks,
      resolve: this.options.resolve,
    };
  }

  /**
   * A new delivery of `config` (`row`, its body rendered: `body`, or null for a delete
   * event): created, and its first attempt made if due now and a slot comes in time. Returns
   * what to write.
   */
  async first(
    config: WebhookConfig,
    row: WebhookDelivery,
    body: Uint8Array | null,
    maxBodyBytes: number,
  ): Promise<NewDelivery> {
    let step = transition(
      row,
      { type: "created", bodyBytes: body?.length ?? 0, maxBodyBytes },
      this.context(),
    );
    if (step.effects.some((e) => e.kind === "send")) {
      const result = await this.#send(config, row, body!);
      const input: DeliveryInput = result ? { type: "attempted", result } : {
        type: "deferred",
        delayMs: DEFER_MS,
      };
      step = transition(step.state, input, this.context());
    }
    const kept = step.state.status === "pending" || step.state.attempts > 0 ? body : null;
    return {
      change: changeOf(step.state, step.effects),
      body: kept,
      after: () => this.#report(step.state, step.effects),
    };
  }

  /** Makes the scheduled `attempt`, if its delivery still waits for it. */
  async due(attempt: ScheduledAttempt): Promise<void> {
    const { webhookId, deliveryId, token } = attempt;
    const release = await this.#claim(`${deliveryId}:${token}`);
    try {
      const { configs, deliveries } = this.options;
      const stored = await deliveries.due(attempt);
      if (!stored) return;
      const config = await configs.config(webhookId);
      if (!config) {
        await deliveries.purgeDelivery(stored);
        return;
      }
      try {
        const result = await this.#send(config, stored.row, stored.body, true);
        if (!result) {
          await deliveries.redeliver(attempt, DEFER_MS);
          return;
        }
        const step = transition(stored.row, { type: "attempted", result }, this.context());
        const ok = await deliveries.updateDelivery(stored, changeOf(step.state, step.effects));
        if (ok) this.#report(step.state, step.effects);
        else {
          this.options.life.log(
            "warn",
            "Webhook delivery changed during its attempt; attempt not recorded",
            { webhookId, deliveryId },
          );
        }
      } finally {
        this.sending.delete(deliveryId);
      }
    } finally {
      release();
    }
  }

  /**
   * One request of delivery `row` to `config` once a slot of the configuration is free; null
   * when none came in time. `stored`: the delivery is in the store (a queued attempt).
   */
  async #send(
    config: WebhookConfig,
    row: WebhookDelivery,
    body: Uint8Array,
    stored = false,
  ): Promise<AttemptResult | null> {
    const limit = config.concurrency ?? this.options.settings.concurrency_per_webhook;
    const slot = await this.#limiter.acquire(config.id, limit, SLOT_WAIT_MS);
    if (!slot) return null;
    // A stored delivery is "being sent" (the owner's retry waits) from here until recorded.
    if (stored) this.sending.add(row.id);
    let result: AttemptResult;
    try {
      const request = buildRequest(config, { id: row.id, body, contentType: row.contentType });
      result = await sendRequest(request, this.sendOptions());
    } finally {
      slot(); // The limit is on requests in flight; recording the outcome needs no slot.
    }
    this.options.onAttempt?.(result.outcome);
    return result;
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

  /** Logs the failures a committed transition reports. */
  #report(state: WebhookDelivery, effects: DeliveryEffect[]): void {
    for (const effect of effects) {
      if (effect.kind !== "report_failure") continue;
      this.options.life.log("warn", "Webhook delivery failed", {
        webhookId: state.webhookId,
        deliveryId: state.id,
        reason: effect.flag.reason,
        status: effect.flag.status,
        attempts: effect.attempts,
      });
    }
  }
}
