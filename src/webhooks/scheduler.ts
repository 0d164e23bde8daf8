/**
 * A delivery's transition as one store write: the new state and its effects become one
 * {@linkcode DeliveryChange}, which the deliveries port writes atomically, so that a pending
 * delivery always has the scheduled attempt that will make it, and an attempt's row, its
 * delivery's state and its failure flag never disagree.
 *
 * @module
 */
import type { DeliveryChange, WebhookDelivery } from "../store/ports/webhooks.ts";
import type { DeliveryEffect } from "./transition.ts";

/**
 * The store write of `state` with `effects` (those done once committed, such as reporting a
 * failure, are left to the runner).
 *
 * @example
 * ```ts
 * const step = transition(row, { type: "attempted", result }, context);
 * await deliveries.updateDelivery(stored, changeOf(step.state, step.effects));
 * ```
 */
export function changeOf(state: WebhookDelivery, effects: DeliveryEffect[]): DeliveryChange {
  const change: DeliveryChange = { state };
  for (const effect of effects) {
    switch (effect.kind) {
      case "log_attempt":
        change.attempt = effect.attempt;
        break;
      case "schedule":
        change.schedule = { dueAt: effect.dueAt };
        break;
      case "unschedule":
        change.schedule = null;
        break;
      case "fail":
        change.failure = { flag: effect.flag };
        break;
      case "clear_failure":
        change.failure = "clear";
        break;
    }
  }
  return change;
}
