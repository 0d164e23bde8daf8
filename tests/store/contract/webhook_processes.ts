/**
 * The webhook ports' contract with several processes on one store (`src/store/ports/
 * webhooks.ts`, `record_events.ts`): due attempts shared out, a dead process's claimed attempt
 * taken over after its lease, an event taken by one process only, a delivery created once.
 * Through the ports only; run by stores that several processes share
 * (`tests/store/pg_webhooks_contract_test.ts`).
 */
import assert from "node:assert/strict";
import type { StoredRecordEvent } from "../../../src/store/ports/record_events.ts";
import type { ScheduledAttempt, WebhookPorts } from "../../../src/store/ports/webhooks.ts";
import {
  attemptRow,
  eventually,
  fixtureTests,
  pendingRow,
  recordEvent,
  type WebhooksFixture,
} from "./webhooks.ts";

/** How another process works the shared schedule. */
export interface ProcessOptions {
  /** How long an attempt it claimed stays its own unless renewed. */
  claimLeaseMs?: number;
  /** How long an event it took stays its own unless renewed. */
  eventLeaseMs?: number;
  /** Attempts it has under way at most. */
  maxInFlight?: number;
}

/** Another process's ports; `kill` ends it at once (its connections drop, nothing is renewed). */
export type ProcessPorts = WebhookPorts & { kill(): Promise<void> };

/** A store several processes share: `process` opens another one's ports (own connections). */
export interface ProcessesFixture extends WebhooksFixture {
  process(options?: ProcessOptions): Promise<ProcessPorts>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Registers the contract's tests; `make` gives each a fresh store.
 *
 * @example
 * ```ts
 * webhookProcessesContract("postgres", async () => ({ port, emit, process, close }));
 * ```
 */
export function webhookProcessesContract(
  name: string,
  make: () => Promise<ProcessesFixture>,
): void {
  const test = fixtureTests(`${name}: webhooks, two processes`, make);

  test("due attempts are shared out: each comes due once, in both", async ({ port, process }) => {
    const total = 120;
    for (let i = 0; i < total; i++) {
      const state = pendingRow(`d${String(i).padStart(3, "0")}`, "w1", { token: `t${i}` });
      await port.deliveries.createDelivery({ state, schedule: { dueAt: Date.now() - 1 } }, null);
    }
    const came: { by: string; attempt: ScheduledAttempt }[] = [];
    for (const by of ["a", "b"]) {
      const ports = await process({ maxInFlight: 8 });
      ports.deliveries.onDue(async (attempt) => {
        came.push({ by, attempt });
        await sleep(20);
      });
    }
    await eventually(() => came.length >= total);
    await sleep(500);
    const ids = came.map((c) => c.attempt.deliveryId);
    assert.equal(new Set(ids).size, total, "every attempt came");
    assert.equal(ids.length, total, "none came twice");
    assert.ok(came.some((c) => c.by === "a") && came.some((c) => c.by === "b"), "both worked");
  });

  test("a live process keeps its claimed attempt; a killed one's is taken over after the lease", async ({ port, process }) => {
    const lease = 600;
    const state = pendingRow("d1", "w1", { token: "t1" });
    await port.deliveries.createDelivery({ state, schedule: { dueAt: Date.now() } }, null);
    const { promise: stuck, resolve: unstick } = Promise.withResolvers<void>();
    let claimed = 0;
    const a = await process({ claimLeaseMs: lease });
    a.deliveries.onDue(async () => {
      claimed++;
      await stuck; // A slow attempt: its lease is renewed while it runs.
    });
    await eventually(() => claimed > 0);
    const b = await process({ claimLeaseMs: lease });
    const tookOver: ScheduledAttempt[] = [];
    b.deliveries.onDue((attempt) => {
      tookOver.push(attempt);
      return Promise.resolve();
    });
    try {
      await sleep(lease * 3);
      assert.deepEqual(tookOver, [], "a live process's claim is renewed");
      await a.kill();
      const killedAt = Date.now();
      await eventually(() => tookOver.length > 0);
      assert.ok(Date.now() - killedAt >= lease / 3, "not before the lease ran out");
      assert.deepEqual(tookOver[0], { webhookId: "w1", deliveryId: "d1", token: "t1" });
      await sleep(lease * 2);
      assert.equal(tookOver.length, 1, "handled once it was taken over: not due again");
      assert.equal(claimed, 1);
    } finally {
      unstick();
    }
  });

  test("a live process keeps the events it took; a killed one's are taken over", async ({ emit, process }) => {
    const lease = 600;
    const [a, b] = [await process({ eventLeaseMs: lease }), await process({ eventLeaseMs: lease })];
    const ids = ["e1", "e2", "e3"];
    for (const id of ids) await emit(recordEvent(id));
    const all = { skip: () => false, limit: 10 };
    const taken = await a.recordEvents.scan(all);
    assert.deepEqual(taken.events.map((s) => s.event.eventId), ids);
    await sleep(lease * 2);
    assert.deepEqual((await b.recordEvents.scan(all)).events, [], "renewed while a lives");
    await a.kill();
    await eventually(async () => (await b.recordEvents.scan(all)).events.length === 3);
  });

  test("an announced event is taken by one process only", async ({ emit, process }) => {
    const took = new Map<string, Set<string>>([["a", new Set()], ["b", new Set()]]);
    const processes: WebhookPorts[] = [];
    for (const set of took.values()) {
      const ports = await process();
      processes.push(ports);
      ports.recordEvents.onAnnounced((events: StoredRecordEvent[]) => {
        for (const s of events) set.add(s.event.eventId);
      });
    }
    const ids = Array.from({ length: 40 }, (_, i) => `e${String(i).padStart(2, "0")}`);
    for (const id of ids) await emit(recordEvent(id));
    // What an announcement did not bring, a scan does (the other's claims are skipped).
    await sleep(300);
    await Promise.all(processes.map(async (ports, i) => {
      const { events } = await ports.recordEvents.scan({ skip: () => false, limit: 100 });
      for (const s of events) took.get(i === 0 ? "a" : "b")!.add(s.event.eventId);
    }));
    const [a, b] = [...took.values()];
    assert.deepEqual([...a].filter((id) => b.has(id)), [], "no event went to both");
    assert.deepEqual([...new Set([...a, ...b])].sort(), ids);
  });

  test("one delivery created and updated from two processes at once: one wins", async ({ process }) => {
    const [a, b] = [await process(), await process()];
    const state = pendingRow("d1");
    const created = await Promise.all(
      [a, b].map((p) => p.deliveries.createDelivery({ state, attempt: attemptRow(1) }, null)),
    );
    assert.deepEqual(created.sort(), [false, true]);
    const read = (await a.deliveries.delivery("d1"))!;
    const updated = await Promise.all(
      [a, b].map((p, i) =>
        p.deliveries.updateDelivery(read, { state: { ...read.row, round: i + 1 } })
      ),
    );
    assert.equal(updated.filter(Boolean).length, 1);
    const round = (await b.deliveries.delivery("d1"))!.row.round;
    assert.equal(updated[round - 1], true);
    assert.deepEqual(await b.deliveries.attempts("d1"), [attemptRow(1)]);
  });
}
