/**
 * The webhook team's ports on PostgreSQL, for the store bundle: configurations and flags,
 * deliveries with the schedule every vault worker of the database claims from, and the record
 * events outbox as its consumer sees it.
 *
 * @module
 */
import type { WebhookPorts } from "../ports/webhooks.ts";
import type { Sql } from "./db.ts";
import { PgRecordEventOutbox } from "./record_events.ts";
import { PgWebhookDeliveries } from "./webhook_deliveries.ts";
import { PgWebhookConfigs } from "./webhook_configs.ts";

/** How the webhook ports share work between the processes of one database. */
export interface WebhookPgOptions {
  /** How often a worker looks for due attempts besides NOTIFY wake-ups (default 1000 ms). */
  pollMs?: number;
  /**
   * How long a claimed attempt is left to the worker that claimed it unless renewed (default
   * 30 s; renewed every third of it while the attempt runs): a killed worker's attempt is
   * taken by another after that.
   */
  claimLeaseMs?: number;
  /**
   * How long a record event one worker took is left to it unless renewed (default 30 s;
   * renewed every third of it until the event is removed).
   */
  eventLeaseMs?: number;
  /** Attempts one worker has under way at most (default 256). */
  maxInFlight?: number;
  /** When an attempt whose handler threw comes again (default 2000 ms). */
  retryMs?: number;
  /** Delivery writes committed together at most (default 128; 1: a transaction each). */
  maxBatch?: number;
}

/** The webhook ports on PostgreSQL, and how to let go of them. */
export type WebhookPgPorts = WebhookPorts & {
  /** Stops claiming attempts and listening; waits for the work under way (the pool stays). */
  close(): Promise<void>;
};

/**
 * The webhook ports on the pool `sql` (migrated). Scheduled attempts come due once the
 * engine registers its handler (`deliveries.onDue`).
 *
 * @example
 * ```ts
 * const ports = await webhookPgPorts(sql);
 * const engine = new WebhookEngine({ ...ports, forms, settings });
 * await engine.start();
 * // ...
 * await engine.stop();
 * await ports.close();
 * ```
 */
export function webhookPgPorts(sql: Sql, options: WebhookPgOptions = {}): Promise<WebhookPgPorts> {
  const deliveries = new PgWebhookDeliveries(sql, {
    pollMs: options.pollMs ?? 1_000,
    claimLeaseMs: options.claimLeaseMs ?? 30_000,
    maxInFlight: options.maxInFlight ?? 256,
    retryMs: options.retryMs ?? 2_000,
  }, options.maxBatch);
  const recordEvents = new PgRecordEventOutbox(sql, options.eventLeaseMs ?? 30_000);
  return Promise.resolve({
    webhooks: new PgWebhookConfigs(sql),
    deliveries,
    recordEvents,
    close: async () => {
      await deliveries.close();
      await recordEvents.close();
    },
  });
}
