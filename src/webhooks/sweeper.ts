/**
 * The sweeper: re-arms pending deliveries whose attempt message is overdue (it may have been
 * lost), and the re-arm itself, shared with the owner's retries: a transition committed only
 * if the delivery did not change meanwhile.
 *
 * @module
 */
import type { WebhookDeliveryRow, WebhookPendingRow } from "../store/keys.ts";
import { webhookKeys as k } from "../store/keys.ts";
import type { Dispatcher } from "./dispatcher.ts";
import { deliveryWrite } from "./scheduler.ts";
import { transition } from "./transition.ts";
import { KvWrite } from "../store/write.ts";

/**
 * Commits `input` (`rearm` or the owner's `retry`) on delivery `entry`: an attempt now, with
 * a new token (older messages become stale). False when the delivery changed meanwhile.
 *
 * @example
 * ```ts
 * if (!await rearm(kv, dispatcher, entry, "retry")) console.log("changed meanwhile");
 * ```
 */
export async function rearm(
  kv: Deno.Kv,
  dispatcher: Dispatcher,
  entry: Deno.KvEntry<WebhookDeliveryRow>,
  input: "rearm" | "retry",
): Promise<boolean> {
  const step = transition(entry.value, { type: input }, dispatcher.context());
  const w = new KvWrite().check(entry);
  deliveryWrite(step.state, step.effects).apply(w);
  return await w.commit(kv);
}

/**
 * Re-arms pending deliveries overdue by more than `graceMs` (0 on start, when nothing is
 * under way) and drops markers of deliveries no longer pending. Returns how many it re-armed.
 *
 * @example
 * ```ts
 * const rearmed = await sweepPending(kv, dispatcher, 0);
 * ```
 */
export async function sweepPending(
  kv: Deno.Kv,
  dispatcher: Dispatcher,
  graceMs: number,
): Promise<number> {
  const now = Date.now();
  let rearmed = 0;
  for await (const entry of kv.list<WebhookPendingRow>({ prefix: k.pendingAll() })) {
    const id = entry.key[entry.key.length - 1] as string;
    if (dispatcher.sending.has(id) || entry.value.dueAt + graceMs >= now) continue;
    const delivery = await kv.get<WebhookDeliveryRow>(k.delivery(entry.value.webhookId, id));
    if (delivery.value?.status === "pending") {
      const pending = delivery as Deno.KvEntry<WebhookDeliveryRow>;
      if (await rearm(kv, dispatcher, pending, "rearm")) rearmed++;
    } else {
      await kv.atomic().check(entry).delete(entry.key).commit();
    }
  }
  return rearmed;
}
