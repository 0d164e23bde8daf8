/**
 * The webhook deliveries port on PostgreSQL beside Deno KV, in one run (port level, no HTTP):
 *
 * - lifecycle writes: each delivery is created with a failed first attempt and its retry
 *   scheduled, then updated as delivered (its second attempt, the schedule dropped), as the
 *   engine writes a delivery retried once; `--inFlight` deliveries at once. PostgreSQL with
 *   group commit, with one transaction per write (`maxBatch: 1`, what group commit saves), and
 *   the Deno KV port (the single-process default);
 * - the shared schedule: `--due` attempts due at once, claimed by one and by two workers (two
 *   pools) with a handler that does nothing: attempts/s through claim, handler and settle.
 *
 *   deno run -A bench/pg_webhooks.ts [--seconds 5] [--inFlight 64] [--due 5000]
 *
 * Needs the test PostgreSQL cluster (started on first use; SERVICES_DIR as for the tests).
 */
import { parseArgs } from "node:util";
import { webhookKvPorts } from "../src/store/kv/webhook_ports.ts";
import { webhookPgPorts } from "../src/store/pg/webhook_ports.ts";
import type { WebhookDeliveries } from "../src/store/ports/webhooks.ts";
import { QueueDispatcher } from "../src/store/kv/queue.ts";
import { freshKv } from "../tests/store/contract/_kv.ts";
import { freshPg } from "../tests/store/contract/_pg.ts";
import { attemptRow, pendingRow } from "../tests/store/contract/webhooks.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "5" },
    inFlight: { type: "string", default: "64" },
    due: { type: "string", default: "5000" },
  },
});
const SECONDS = Number(args.values.seconds);
const IN_FLIGHT = Number(args.values.inFlight);
const DUE = Number(args.values.due);
const BODY = crypto.getRandomValues(new Uint8Array(600));

/** Deliveries taken through create + update for SECONDS; answers deliveries per second. */
async function lifecycle(deliveries: WebhookDeliveries): Promise<number> {
  const end = performance.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async (_, w) => {
    for (let i = 0; performance.now() < end; i++) {
      const id = `${w}-${i}-${crypto.randomUUID()}`;
      const state = pendingRow(id, `w${w % 8}`, { attempts: 1, token: "t1" });
      const schedule = { dueAt: Date.now() + 3_600_000 };
      if (!await deliveries.createDelivery({ state, attempt: attemptRow(1), schedule }, BODY)) {
        throw new Error("A fresh delivery was refused");
      }
      const read = (await deliveries.delivery(id))!;
      const delivered = { ...read.row, status: "delivered" as const, attempts: 2 };
      const change = { state: delivered, attempt: attemptRow(2, 200), schedule: null };
      if (!await deliveries.updateDelivery(read, change)) throw new Error("An update was refused");
      done++;
    }
  }));
  return done / SECONDS;
}

const rows: [string, string][] = [];
async function kvRun() {
  const kv = await freshKv();
  const queue = new QueueDispatcher(kv.kv);
  const ports = webhookKvPorts(kv.kv, queue);
  try {
    rows.push(["deno kv (baseline)", String(Math.round(await lifecycle(ports.deliveries)))]);
    await ports.deliveries.idle();
  } finally {
    await kv.close();
  }
}

async function pgRun(name: string, maxBatch?: number) {
  const pg = await freshPg();
  const ports = await webhookPgPorts(pg.sql, { maxBatch });
  try {
    rows.push([name, String(Math.round(await lifecycle(ports.deliveries)))]);
  } finally {
    await ports.close();
    await pg.close();
  }
}

/** DUE attempts due now, handled by `workers` pools; answers attempts per second. */
async function claimed(workers: number): Promise<number> {
  const pg = await freshPg();
  const writer = await webhookPgPorts(pg.sql);
  const opened = [writer];
  try {
    for (let i = 0; i < DUE; i += 500) {
      await Promise.all(Array.from({ length: Math.min(500, DUE - i) }, (_, j) => {
        const state = pendingRow(`d${i + j}`, "w1", { token: "t" });
        return writer.deliveries.createDelivery({ state, schedule: { dueAt: 0 } }, null);
      }));
    }
    let handled = 0;
    const { promise: all, resolve } = Promise.withResolvers<void>();
    const started = performance.now();
    for (let w = 0; w < workers; w++) {
      const ports = await webhookPgPorts(pg.open({ max: 4 }), { pollMs: 100 });
      opened.push(ports);
      ports.deliveries.onDue(() => {
        if (++handled === DUE) resolve();
        return Promise.resolve();
      });
    }
    await all;
    const seconds = (performance.now() - started) / 1000;
    return DUE / seconds;
  } finally {
    for (const ports of opened) await ports.close();
    await pg.close();
  }
}

await pgRun("postgres, group commit");
await pgRun("postgres, one transaction per write (baseline)", 1);
await kvRun();
const one = await claimed(1);
const two = await claimed(2);

const load = Deno.loadavg().map((l) => l.toFixed(1)).join(" ");
console.log(
  `deliveries created + delivered (2 writes each, 600 B bodies), ${IN_FLIGHT} in flight, ` +
    `${SECONDS} s; load ${load}`,
);
console.log("| port | deliveries/s |");
console.log("| --- | ---: |");
for (const [name, perSecond] of rows) console.log(`| ${name} | ${perSecond} |`);
console.log(`\n${DUE} attempts due at once, claimed and settled (no-op handler)`);
console.log("| workers | attempts/s |");
console.log("| --- | ---: |");
console.log(`| 1 | ${Math.round(one)} |`);
console.log(`| 2 | ${Math.round(two)} |`);
