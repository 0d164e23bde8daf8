/**
 * The webhook team's ports on Deno KV, for the `Store` bundle: configurations and flags,
 * deliveries, and the record events outbox as its consumer sees it.
 *
 * @module
 */
import { RecordEventAnnouncer } from "../ports/record_events.ts";
import type { WebhookPorts } from "../ports/webhooks.ts";
import type { QueueDispatcher } from "./queue.ts";
import { KvRecordEventOutbox } from "./record_events.ts";
import { KvWebhookDeliveries } from "./webhook_deliveries.ts";
import { KvWebhookConfigs } from "./webhooks.ts";

/**
 * The webhook ports on `kv`. Scheduled attempts come due on `queue`, the process's one queue
 * listener (started by its owner once every feature has registered).
 *
 * @example
 * ```ts
 * const queue = new QueueDispatcher(kv);
 * const ports = webhookKvPorts(kv, queue);
 * queue.start();
 * ```
 */
export function webhookKvPorts(
  kv: Deno.Kv,
  queue: QueueDispatcher,
  announcer = new RecordEventAnnouncer(),
): WebhookPorts {
  const deliveries = new KvWebhookDeliveries(kv, queue);
  return {
    webhooks: new KvWebhookConfigs(kv, deliveries),
    deliveries,
    recordEvents: new KvRecordEventOutbox(kv, announcer),
  };
}
