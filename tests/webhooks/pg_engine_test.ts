/**
 * The webhook engine on the PostgreSQL ports, over real HTTP to a receiver on loopback:
 * delivered and retried as on Deno KV; two engines (two vault workers, two pools) on one
 * database make one delivery of each event and send it once; a second engine takes over the
 * scheduled attempts of a stopped one, and, after the claim lease, the attempt a killed
 * (kill -9) worker was making.
 */
import assert from "node:assert/strict";
import type { RecordEvent } from "../../src/store/ports/record_events.ts";
import type { WebhookDeliveries, WebhookDelivery } from "../../src/store/ports/webhooks.ts";
import { json } from "../../src/store/pg/json.ts";
import { PgWebhookConfigs } from "../../src/store/pg/webhook_configs.ts";
import { webhookPgPorts } from "../../src/store/pg/webhook_ports.ts";
import { newConfig } from "../../src/webhooks/config.ts";
import { WebhookCreateSchema } from "../../src/webhooks/index.ts";
import { freshPg } from "../store/contract/_pg.ts";
import { contactEvent, type Receiver, startReceiver, until } from "./_harness.ts";
import { emitContact, startPgWorker } from "./_pg_harness.ts";

const VALUES = { name: "Ada", age: 36, tags: ["math"] };

/** A fresh schema with one webhook of form `contact`. */
async function setup(receiver: Receiver) {
  const pg = await freshPg();
  const { row } = newConfig("contact", WebhookCreateSchema.parse({ url: receiver.url }));
  assert.ok(await new PgWebhookConfigs(pg.sql).createConfig(row));
  return { pg, hook: row };
}

/** Every delivery of webhook `webhookId`, read page by page. */
async function deliveriesOf(deliveries: WebhookDeliveries, webhookId: string) {
  const rows: WebhookDelivery[] = [];
  let cursor: string | undefined;
  do {
    const page = await deliveries.deliveries(webhookId, { cursor, limit: 100 });
    rows.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return rows;
}

/** The delivery of `event` to `webhookId` once it has `status` (bounded wait). */
function settled(
  deliveries: WebhookDeliveries,
  webhookId: string,
  event: RecordEvent,
  status: WebhookDelivery["status"],
): Promise<WebhookDelivery> {
  return until(
    async () => {
      const row = (await deliveriesOf(deliveries, webhookId)).find((d) =>
        d.eventId === event.eventId
      );
      return row?.status === status ? row : null;
    },
    `the delivery of ${event.eventId} to be ${status}`,
    15_000,
  );
}

const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name: `postgres engine: ${name}`, fn, sanitizeOps: false, sanitizeResources: false });

test("delivered, and retried on 500 until a 2xx", async () => {
  const receiver = startReceiver((n) =>
    new Response(n === 1 ? "busy" : "ok", {
      status: n === 1 ? 500 : 201,
    })
  );
  const { pg, hook } = await setup(receiver);
  const worker = await startPgWorker(pg.sql);
  try {
    const event = await emitContact(pg.sql, VALUES);
    const row = await settled(worker.ports.deliveries, hook.id, event, "delivered");
    assert.equal(row.attempts, 2);
    assert.equal(row.lastStatus, 201);
    const [first, second] = await receiver.waitFor(2);
    assert.deepEqual(second.raw, first.raw, "the retry sends the same bytes");
    assert.equal(JSON.parse(first.text)._recordId, event.recordId);
    const attempts = await worker.ports.deliveries.attempts(row.id);
    assert.deepEqual(attempts.map((a) => [a.status, a.outcome]), [
      [500, "transient"],
      [201, "delivered"],
    ]);
    // Nothing left: the event left the outbox, nothing is scheduled or counted.
    const left = await worker.ports.recordEvents.scan({ skip: () => false, limit: 10 });
    assert.deepEqual(left.events, []);
    assert.deepEqual(await worker.ports.deliveries.countByState(100), { pending: 0, failed: 0 });
    const [{ n }] = await pg.sql`select count(*)::int as n from webhook_schedule`;
    assert.equal(n, 0);
  } finally {
    await worker.stop();
    await receiver.close();
    await pg.close();
  }
});

test("two engines on one database: each event one delivery, sent once", async () => {
  const receiver = startReceiver(() => new Response("ok"));
  const { pg, hook } = await setup(receiver);
  const a = await startPgWorker(pg.sql);
  const b = await startPgWorker(pg.open());
  try {
    const events: RecordEvent[] = [];
    for (let i = 0; i < 30; i++) events.push(await emitContact(pg.sql, { ...VALUES, age: i }));
    for (const event of events) await settled(a.ports.deliveries, hook.id, event, "delivered");
    await new Promise((r) => setTimeout(r, 500));
    const sent = receiver.received.map((r) => JSON.parse(r.text)._recordId);
    assert.equal(sent.length, 30, "each event sent once");
    assert.deepEqual([...new Set(sent)].sort(), events.map((e) => e.recordId).sort());
    const rows = await deliveriesOf(b.ports.deliveries, hook.id);
    assert.equal(rows.length, 30);
    assert.ok(rows.every((r) => r.attempts === 1));
  } finally {
    await a.stop();
    await b.stop();
    await receiver.close();
    await pg.close();
  }
});

test("a second engine takes over the scheduled attempts of a stopped one", async () => {
  const receiver = startReceiver((n) => new Response("", { status: n === 1 ? 503 : 200 }));
  const { pg, hook } = await setup(receiver);
  const settings = { retry_schedule_seconds: [0, 1.5] };
  const a = await startPgWorker(pg.sql, settings);
  let b: Awaited<ReturnType<typeof startPgWorker>> | null = null;
  try {
    const event = await emitContact(pg.sql, VALUES);
    await until(async () => {
      const rows = await deliveriesOf(a.ports.deliveries, hook.id);
      return rows[0]?.attempts === 1 && rows[0].status === "pending";
    }, "the first attempt to fail");
    await a.stop();
    b = await startPgWorker(pg.open(), settings);
    const row = await settled(b.ports.deliveries, hook.id, event, "delivered");
    assert.equal(row.attempts, 2);
    assert.equal(receiver.received.length, 2);
  } finally {
    await b?.stop();
    await receiver.close();
    await pg.close();
  }
});

test("kill -9 mid-attempt: another worker takes the attempt over after the claim lease", async () => {
  const { promise: hold, resolve: release } = Promise.withResolvers<void>();
  const receiver = startReceiver(async (n) => {
    if (n === 2) await hold; // The killed worker's attempt: never answered while it lives.
    return new Response("", { status: n === 1 ? 503 : 200 });
  });
  const { pg, hook } = await setup(receiver);
  const lease = 2_000;
  const settings = { retry_schedule_seconds: [0, 0.3], request_timeout_seconds: 20 };
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("./_pg_worker.ts", import.meta.url).pathname,
      JSON.stringify({
        url: pg.url,
        schema: pg.schema,
        settings,
        options: { claimLeaseMs: lease },
      }),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let b: Awaited<ReturnType<typeof startPgWorker>> | null = null;
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assert.match((await reader.read()).value ?? "", /ready/);
    const event = await emitContact(pg.sql, VALUES);
    await receiver.waitFor(2, 15_000);
    child.kill("SIGKILL");
    await child.status;
    const killedAt = Date.now();
    b = await startPgWorker(pg.open(), settings, { claimLeaseMs: lease });
    const row = await settled(b.ports.deliveries, hook.id, event, "delivered");
    assert.ok(Date.now() - killedAt >= lease / 2, "taken over once the lease ran out");
    assert.equal(receiver.received.length, 3);
    const attempts = await b.ports.deliveries.attempts(row.id);
    assert.deepEqual(attempts.map((a) => a.status), [503, 200], "the killed attempt left no row");
  } finally {
    release();
    await b?.stop();
    await receiver.close();
    await pg.close();
  }
});

test("a dead worker's blocked event goes through here, and its flag is cleared", async () => {
  const receiver = startReceiver(() => new Response("ok"));
  const { pg, hook } = await setup(receiver);
  const lease = { eventLeaseMs: 600 };
  // An event taken by a worker that then flags its webhook blocked (its form's fields were
  // unavailable there) and dies, while b runs.
  const event = contactEvent(VALUES);
  await pg.sql`insert into vault_record_events (event_id, event)
    values (${event.eventId}, ${json(event)}::jsonb)`;
  const dead = await webhookPgPorts(pg.open(), lease);
  const taken = await dead.recordEvents.scan({ skip: () => false, limit: 10 });
  assert.deepEqual(taken.events.map((s) => s.event.eventId), [event.eventId]);
  const b = await startPgWorker(pg.open(), {}, lease);
  try {
    const flag = {
      at: new Date().toISOString(),
      deliveryId: null,
      reason: "blocked" as const,
      eventId: event.eventId,
      status: null,
      error: "fields unavailable",
    };
    await dead.webhooks.flagBlocked([hook.id], flag);
    await dead.close();
    // b's next sweep reads the flag, then takes the event once the dead worker's claim ran out.
    await new Promise((r) => setTimeout(r, 700));
    await b.engine.sweep(0);
    await settled(b.ports.deliveries, hook.id, event, "delivered");
    await until(async () => await b.ports.webhooks.flag(hook.id) === null, "the flag to clear");
  } finally {
    await b.stop();
    await receiver.close();
    await pg.close();
  }
});
