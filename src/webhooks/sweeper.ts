/**
 * The sweeper: re-arms pending deliveries whose scheduled attempt is overdue (it may have
 * been lost), and the re-arm itself, shared with the owner's retries: a transition written
 * only if the delivery did not change meanwhile.
 *
 * @module
 */
import type { StoredDelivery, WebhookDeliveries } from "../store/ports/webhooks.ts";
import type { Dispatcher } from "./dispatcher.ts";
import { changeOf } from "./scheduler.ts";
import { transition } from "./transition.ts";

/**
 * Writes `input` (`rearm` or the owner's `retry`) on delivery `stored`: an attempt now, with
 * a new token (older scheduled attempts become stale). False when the delivery changed
 * meanwhile.
 *
 * @example
 * ```ts
 * if (!await rearm(deliveries, dispatcher, stored, "retry")) console.log("changed meanwhile");
 * ```
 */
export async function rearm(
  deliveries: WebhookDeliveries,
  dispatcher: Dispatcher,
  stored: StoredDelivery,
  input: "rearm" | "retry",
): Promise<boolean> {
  const step = transition(stored.row, { type: input }, dispatcher.context());
  return await deliveries.updateDelivery(stored, changeOf(step.state, step.effects));
}

/**
 * Re-arms pending deliveries overdue by more than `graceMs` (0 on start, when nothing is
 * under way), except those being sent right now. Returns how many it re-armed.
 *
 * @example
 * ```ts
 * const rearmed = await sweepPending(deliveries, dispatcher, 0);
 * ```
 */
export async function sweepPending(
  deliveries: WebhookDeliveries,
  dispatcher: Dispatcher,
  graceMs: number,
): Promise<number> {
  let rearmed = 0;
  for await (const stored of deliveries.overdue(Date.now() - graceMs)) {
    if (dispatcher.sending.has(stored.row.id)) continue;
    if (await rearm(deliveries, dispatcher, stored, "rearm")) rearmed++;
  }
  return rearmed;
}
