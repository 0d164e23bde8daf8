/**
 * A delivery's life as a pure transition: `(state, input, context) → (state, effects)`.
 *
 * The state is the delivery row; the inputs are its creation, an attempt's result, the
 * owner's retry, the sweeper's re-arm and a deferral (no slot of the configuration came in
 * time). The effects say what else the same atomic operation writes (the attempt's own row,
 * the next attempt's queue message, the failure flag) and what to do once it is committed.
 * Nothing here reads a clock, a store or randomness: the runners pass them in the context.
 *
 * ```text
 *   created ──(body over the limit)──────────────────────────────▶ failed ◀──┐
 *   created ──(delete event)─────────────────────────────────────▶ skipped   │
 *   created ──▶ pending ──attempted: delivered (2xx, 3xx)────────▶ delivered │
 *                 │  ▲ ──attempted: permanent (other 4xx)───────────────────┤
 *                 │  │ ──attempted: transient, schedule over────────────────┘
 *                 │  └─attempted: transient (408, 429, 5xx, network), next round
 *                 └────deferred / rearm: same round, new token
 *   delivered, failed ──retry (owner)──▶ pending, round 0, flag cleared
 * ```
 *
 * @module
 */
import type { WebhookAttempt, WebhookDelivery, WebhookFlag } from "../store/ports/webhooks.ts";
import { type BackoffSettings, nextWaitSeconds } from "./outcome.ts";
import type { AttemptResult } from "./send.ts";

/** What happens to a delivery. */
export type DeliveryInput =
  /** A new delivery, its body rendered: `bodyBytes` long, or the event needs no call. */
  | { type: "created"; bodyBytes: number; maxBodyBytes: number }
  /** An attempt came back with `result`. */
  | { type: "attempted"; result: AttemptResult }
  /** No slot of the configuration came in time: the attempt comes back after `delayMs`. */
  | { type: "deferred"; delayMs: number }
  /** The sweeper found the attempt's message overdue (it may be lost): attempt now. */
  | { type: "rearm" }
  /** The owner's retry: attempt now, the schedule restarted, the failure cleared. */
  | { type: "retry" };

/** A failure recorded for the owner. */
export type FailureFlag = WebhookFlag & { deliveryId: string };

/** What a transition asks of the runners, besides writing the new state. */
export type DeliveryEffect =
  /** Make the first attempt now (nothing is written before it). */
  | { kind: "send" }
  /** Write the attempt's own row. */
  | { kind: "log_attempt"; attempt: WebhookAttempt }
  /** Write the pending marker and the attempt message (`state.token`) due at `dueAt`. */
  | { kind: "schedule"; dueAt: number }
  /** Delete the pending marker (the delivery had one). */
  | { kind: "unschedule" }
  /** List the delivery as failed and flag its configuration. */
  | { kind: "fail"; flag: FailureFlag }
  /** Unlist the failure and clear the configuration's flag. */
  | { kind: "clear_failure" }
  /** Once committed: log the failure for the operator. */
  | { kind: "report_failure"; flag: FailureFlag; attempts: number };

/** What a transition depends on besides the state and the input. */
export interface TransitionContext {
  /** Epoch milliseconds. */
  now: number;
  settings: BackoffSettings;
  /** Jitter randomness in [0, 1). */
  random: () => number;
  /** A fresh attempt token. */
  token: () => string;
}

/** The new state and its effects. */
export interface Transition {
  state: WebhookDelivery;
  effects: DeliveryEffect[];
}

/**
 * Moves `state` on by `input`.
 *
 * @example
 * ```ts
 * const { state, effects } = transition(row, { type: "attempted", result }, context);
 * // state.status "pending", effects [log_attempt, schedule] after a 503
 * ```
 */
export function transition(
  state: WebhookDelivery,
  input: DeliveryInput,
  context: TransitionContext,
): Transition {
  switch (input.type) {
    case "created":
      return created(state, input.bodyBytes, input.maxBodyBytes, context);
    case "attempted":
      return attempted(state, input.result, context);
    case "deferred":
      return pendingAt(state, state.round, context.now + input.delayMs, context);
    case "rearm":
      return pendingAt(state, state.round, context.now, context);
    case "retry": {
      const next = pendingAt({ ...state, completedAt: null }, 0, context.now, context);
      next.effects.push({ kind: "clear_failure" });
      return next;
    }
  }
}

function created(
  row: WebhookDelivery,
  bodyBytes: number,
  maxBodyBytes: number,
  context: TransitionContext,
): Transition {
  if (row.reason === "delete") {
    const now = new Date(context.now).toISOString();
    return { state: { ...row, status: "skipped", completedAt: now }, effects: [] };
  }
  if (bodyBytes > maxBodyBytes) {
    const now = new Date(context.now).toISOString();
    const error = `The body of ${bodyBytes} bytes exceeds the ${maxBodyBytes}-byte limit`;
    const flag: FailureFlag = {
      at: now,
      deliveryId: row.id,
      reason: "permanent",
      status: null,
      error,
    };
    return {
      state: { ...row, status: "failed", lastError: error, completedAt: now },
      effects: [{ kind: "fail", flag }],
    };
  }
  const wait = nextWaitSeconds(context.settings, 0, null, context.random) ?? 0;
  if (wait > 0) return pendingAt(row, 0, context.now + Math.round(wait * 1000), context);
  return { state: row, effects: [{ kind: "send" }] };
}

/** Pending at `round` with a new token, its message due at `dueAt`. */
function pendingAt(
  row: WebhookDelivery,
  round: number,
  dueAt: number,
  context: TransitionContext,
): Transition {
  const state: WebhookDelivery = {
    ...row,
    status: "pending",
    round,
    token: context.token(),
    nextAttemptAt: new Date(dueAt).toISOString(),
    updatedAt: new Date(context.now).toISOString(),
  };
  return { state, effects: [{ kind: "schedule", dueAt }] };
}

function attempted(
  row: WebhookDelivery,
  result: AttemptResult,
  context: TransitionContext,
): Transition {
  const now = new Date(context.now).toISOString();
  const n = row.attempts + 1;
  const attempt: WebhookAttempt = {
    n,
    at: result.at,
    status: result.status,
    durationMs: result.durationMs,
    outcome: result.outcome,
    error: result.error,
    snippet: result.snippet,
    retryAfterSeconds: result.retryAfterSeconds,
  };
  // One copy of the row, completed below (it is new: the input state is never changed).
  const state: WebhookDelivery = {
    ...row,
    attempts: n,
    lastAttemptAt: result.at,
    lastStatus: result.status,
    lastError: result.error,
    lastSnippet: result.snippet,
    updatedAt: now,
  };
  const effects: DeliveryEffect[] = [{ kind: "log_attempt", attempt }];
  const wait = result.outcome === "transient"
    ? nextWaitSeconds(context.settings, row.round + 1, result.retryAfterSeconds, context.random)
    : null;
  if (wait !== null) {
    const dueAt = context.now + Math.round(wait * 1000);
    state.status = "pending";
    state.round = row.round + 1;
    state.token = context.token();
    state.nextAttemptAt = new Date(dueAt).toISOString();
    effects.push({ kind: "schedule", dueAt });
    return { state, effects };
  }
  state.nextAttemptAt = null;
  state.completedAt = now;
  // A delivery with a token was scheduled once: its pending marker may exist.
  if (row.token !== "") effects.push({ kind: "unschedule" });
  if (result.outcome === "delivered") {
    state.status = "delivered";
    return { state, effects };
  }
  state.status = "failed";
  const flag: FailureFlag = {
    at: now,
    deliveryId: row.id,
    reason: result.outcome === "permanent" ? "permanent" : "exhausted",
    status: result.status,
    error: result.error,
  };
  effects.push({ kind: "fail", flag }, { kind: "report_failure", flag, attempts: n });
  return { state, effects };
}
