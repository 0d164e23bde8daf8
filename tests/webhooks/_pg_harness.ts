/**
 * A webhook engine on the PostgreSQL ports (one "vault worker"): the test form `contact`
 * with the KV harness's fields, a fast schedule, and the vault's way of emitting a record
 * event on PostgreSQL. Used in-process by `pg_engine_test.ts` and as a child process by
 * `_pg_worker.ts`.
 */
import type { RecordEvent } from "../../src/store/ports/record_events.ts";
import type { Sql } from "../../src/store/pg/db.ts";
import {
  type WebhookPgOptions,
  type WebhookPgPorts,
  webhookPgPorts,
} from "../../src/store/pg/webhook_ports.ts";
import { type FormSource, WebhookEngine, type WebhookSettings } from "../../src/webhooks/index.ts";
import { emitPgRecordEvent } from "../store/pg/_record_events.ts";
import { contactEvent, FAST, FIELDS, OWNER_DATABASE } from "./_harness.ts";

/** One engine on its own pool. */
export interface PgWorker {
  ports: WebhookPgPorts;
  engine: WebhookEngine;
  logs: string[];
  /** Stops the engine, then lets go of the ports (the pool stays open). */
  stop(): Promise<void>;
}

/** The test form's source: form `contact`, in database {@link OWNER_DATABASE}. */
export const FORMS: FormSource = {
  databaseOf: (formId) => Promise.resolve(formId === "contact" ? OWNER_DATABASE : null),
  fields: () => Promise.resolve(FIELDS),
};

/** Starts an engine on the (migrated) pool `sql`. */
export async function startPgWorker(
  sql: Sql,
  settings: Partial<WebhookSettings> = {},
  options: WebhookPgOptions = {},
): Promise<PgWorker> {
  const ports = await webhookPgPorts(sql, { pollMs: 100, retryMs: 200, ...options });
  const logs: string[] = [];
  const engine = new WebhookEngine({
    ...ports,
    forms: FORMS,
    settings: { ...FAST, ...settings },
    log: (line) => logs.push(line),
  });
  await engine.start();
  return {
    ports,
    engine,
    logs,
    stop: async () => {
      await engine.stop();
      await ports.close();
    },
  };
}

/** Emits a record event of form `contact` with `values`, as the vault does on PostgreSQL. */
export async function emitContact(sql: Sql, values: Record<string, unknown>): Promise<RecordEvent> {
  const event = contactEvent(values);
  await emitPgRecordEvent(sql, event);
  return event;
}
