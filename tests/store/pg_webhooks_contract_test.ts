import { type WebhookPgOptions, webhookPgPorts } from "../../src/store/pg/webhook_ports.ts";
import type { PgRecordEventOutbox } from "../../src/store/pg/record_events.ts";
import { freshPg } from "./contract/_pg.ts";
import { recordEventsContract } from "./contract/record_events.ts";
import { webhooksContract, type WebhooksFixture } from "./contract/webhooks.ts";
import { webhookProcessesContract } from "./contract/webhook_processes.ts";
import { emitPgRecordEvent } from "./pg/_record_events.ts";

/** Short waits: the tests' schedules are in tenths of seconds. */
const FAST: WebhookPgOptions = { pollMs: 100, retryMs: 200 };

/** The webhook ports on a fresh PostgreSQL schema; `second` opens another process's. */
async function pgFixture() {
  const pg = await freshPg();
  const opened: { close(): Promise<void> }[] = [];
  const ports = async (sql = pg.sql, options: WebhookPgOptions = {}) => {
    const port = await webhookPgPorts(sql, { ...FAST, ...options });
    opened.push(port);
    return port;
  };
  const port = await ports();
  const fixture: WebhooksFixture = {
    port,
    emit: async (event) => {
      await (port.recordEvents as PgRecordEventOutbox).listening();
      return await emitPgRecordEvent(pg.sql, event);
    },
    close: async () => {
      for (const p of opened) await p.close();
      await pg.close();
    },
  };
  return { fixture, pg, ports };
}

webhooksContract("postgres", async () => (await pgFixture()).fixture);
recordEventsContract("postgres", async () => (await pgFixture()).fixture);
webhookProcessesContract("postgres", async () => {
  const { fixture, pg, ports } = await pgFixture();
  return {
    ...fixture,
    process: async (options) => {
      const sql = pg.open();
      const port = await ports(sql, options);
      return {
        ...port,
        kill: async () => {
          // Stops its timers without waiting for its work, then drops its connections.
          port.close().catch(() => {});
          await sql.end({ timeout: 0 });
        },
      };
    },
  };
});
