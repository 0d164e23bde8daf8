/**
 * The contract of the webhook ports (`src/store/ports/webhooks.ts`): configurations and their
 * flags, deliveries with their attempts and schedule. Through the ports only, so any store
 * runs it; `tests/store/kv_webhooks_contract_test.ts` runs it on Deno KV.
 */
import assert from "node:assert/strict";
import type { RecordEvent, StoredRecordEvent } from "../../../src/store/ports/record_events.ts";
import {
  type DeliveryChange,
  InvalidCursorError,
  MAX_LOGGED_ATTEMPTS,
  type ScheduledAttempt,
  type WebhookAttempt,
  type WebhookConfig,
  type WebhookDelivery,
  type WebhookFlag,
  type WebhookPorts,
} from "../../../src/store/ports/webhooks.ts";
import { WriteTooLargeError } from "../../../src/store/ports/limits.ts";
import { deliveryRow, ISO } from "../../webhooks/_delivery_row.ts";

/** A fresh store with the webhook ports, and the vault's way to put a record event on it. */
export interface WebhooksFixture {
  port: WebhookPorts;
  /** Writes record `event` to the outbox (and announces it) as the vault does. */
  emit(event: RecordEvent): Promise<StoredRecordEvent>;
  close(): Promise<void>;
}

/**
 * The `test(title, body)` of a suite: each registers a `Deno.test` named `{prefix}: {title}`
 * that runs `body` on a fresh fixture from `make`, closed after it.
 */
export function fixtureTests<F extends { close(): Promise<void> }>(
  prefix: string,
  make: () => Promise<F>,
): (title: string, body: (fixture: F) => Promise<void>) => void {
  return (title, body) =>
    Deno.test({
      name: `${prefix}: ${title}`,
      sanitizeOps: false,
      sanitizeResources: false,
      fn: async () => {
        const fixture = await make();
        try {
          await body(fixture);
        } finally {
          await fixture.close();
        }
      },
    });
}

/** A configuration of form `formId`. */
export function configRow(id: string, formId = "f1", overrides = {}): WebhookConfig {
  return {
    id,
    formId,
    name: `hook ${id}`,
    url: "https://receiver.example/hook",
    method: "POST",
    mode: "default",
    template: null,
    bearer: null,
    headers: [],
    signingSecret: null,
    signatureHeader: "X-Service-Signature",
    mappings: {},
    events: ["create", "update", "delete"],
    standardWebhooks: false,
    concurrency: null,
    createdAt: ISO,
    updatedAt: ISO,
    ...overrides,
  };
}

/** A pending delivery `id` of configuration `webhookId`, nothing attempted. */
export function pendingRow(id: string, webhookId = "w1", overrides = {}): WebhookDelivery {
  return deliveryRow({
    id,
    webhookId,
    eventId: `e_${id}`,
    recordId: `r_${id}`,
    contentType: "application/json; charset=utf-8",
    bodyBytes: 2,
    ...overrides,
  });
}

/** Attempt `n`, answered `status`. */
export function attemptRow(n: number, status = 503): WebhookAttempt {
  return {
    n,
    at: ISO,
    status,
    durationMs: n,
    outcome: status < 300 ? "delivered" : "transient",
    error: null,
    snippet: null,
    retryAfterSeconds: null,
  };
}

/** A failure flag of delivery `deliveryId`. */
export function failureFlag(deliveryId: string | null, reason: WebhookFlag["reason"]) {
  return { at: ISO, deliveryId, reason, status: 410, error: "gone" } as WebhookFlag;
}

/** A record event of form `f1`. */
export function recordEvent(eventId: string, values: Record<string, unknown> = {}): RecordEvent {
  return {
    eventId,
    reason: "insert",
    recordId: `r_${eventId}`,
    formId: "f1",
    schemaVersion: 1,
    savedAt: "2026-11-23T11:59:59.0000000+00:00",
    values,
  };
}

const bytes = (n: number, fill = 7) => new Uint8Array(n).fill(fill);

/** Waits (every 10 ms, at most 10 s) until `check` holds. */
export async function eventually(check: () => boolean | Promise<boolean>): Promise<void> {
  for (const end = Date.now() + 10_000; !await check();) {
    if (Date.now() > end) throw new Error("Timed out waiting for a condition");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Registers the contract's tests; `make` gives each a fresh store.
 *
 * @example
 * ```ts
 * webhooksContract("kv", async () => ({ port, emit, close }));
 * ```
 */
export function webhooksContract(name: string, make: () => Promise<WebhooksFixture>): void {
  const test = fixtureTests(`${name}: webhooks`, make);

  test("a configuration is created once, listed oldest first, found by id", async ({ port }) => {
    const { webhooks } = port;
    const later = configRow("w2", "f1", { createdAt: "2026-11-23T12:00:01.000Z" });
    assert.equal(await webhooks.createConfig(later), true);
    assert.equal(await webhooks.createConfig(configRow("w1")), true);
    const mapped = configRow("w3", "f2", { mappings: { zeta: "Z", alpha: "A", mid: "M" } });
    assert.equal(await webhooks.createConfig(mapped), true);
    assert.deepEqual((await webhooks.configsOf("f1")).map((c) => c.id), ["w1", "w2"]);
    assert.deepEqual(await webhooks.config("w3"), mapped);
    const keys = Object.keys((await webhooks.config("w3"))!.mappings);
    assert.deepEqual(keys, ["zeta", "alpha", "mid"], "mappings stay in the order configured");
    assert.equal(await webhooks.config("nope"), null);
    assert.deepEqual(await webhooks.configsOf("f9"), []);
    // The id is taken: nothing is written.
    assert.equal(await webhooks.createConfig(configRow("w1", "f1", { name: "again" })), false);
    assert.equal((await webhooks.config("w1"))?.name, "hook w1");
  });

  test("a configuration over 64 KiB is refused, nothing written", async ({ port }) => {
    const big = configRow("w1", "f1", { template: "x".repeat(70 * 1024), mode: "json_template" });
    await assert.rejects(port.webhooks.createConfig(big), WriteTooLargeError);
    assert.equal(await port.webhooks.config("w1"), null);
    assert.deepEqual(await port.webhooks.configsOf("f1"), []);
  });

  test("an update replaces a configuration and clears its flag, unless it changed", async ({ port }) => {
    const { webhooks, deliveries } = port;
    const before = configRow("w1");
    await webhooks.createConfig(before);
    await deliveries.createDelivery(
      { state: pendingRow("d1", "w1"), failure: { flag: failureFlag("d1", "permanent") } },
      null,
    );
    assert.equal((await webhooks.flag("w1"))?.reason, "permanent");
    const after = { ...before, name: "renamed", updatedAt: "2026-11-23T12:00:05.000Z" };
    assert.equal(await webhooks.updateConfig(before, after), true);
    assert.deepEqual(await webhooks.config("w1"), after);
    assert.equal(await webhooks.flag("w1"), null);
    // `before` is stale now.
    assert.equal(await webhooks.updateConfig(before, { ...before, name: "lost" }), false);
    assert.equal((await webhooks.config("w1"))?.name, "renamed");
    assert.deepEqual((await webhooks.configsOf("f1")).map((c) => c.name), ["renamed"]);
  });

  test("removing a configuration takes its flag and every delivery it had", async ({ port }) => {
    const { webhooks, deliveries } = port;
    await webhooks.createConfig(configRow("w1"));
    await webhooks.createConfig(configRow("w2"));
    for (let i = 0; i < 30; i++) {
      const state = pendingRow(`d${String(i).padStart(2, "0")}`, "w1", { attempts: 1 });
      await deliveries.createDelivery(
        { state, attempt: attemptRow(1), schedule: { dueAt: Date.now() + 3_600_000 } },
        bytes(i === 0 ? 100_000 : 10),
      );
    }
    await deliveries.createDelivery(
      { state: pendingRow("x1", "w1"), failure: { flag: failureFlag("x1", "permanent") } },
      null,
    );
    await deliveries.createDelivery({ state: pendingRow("k1", "w2") }, bytes(5));
    await webhooks.removeConfig((await webhooks.config("w1"))!);
    assert.equal(await webhooks.config("w1"), null);
    assert.deepEqual((await webhooks.configsOf("f1")).map((c) => c.id), ["w2"]);
    assert.equal(await webhooks.flag("w1"), null);
    assert.deepEqual((await deliveries.deliveries("w1", { limit: 100 })).items, []);
    assert.deepEqual(await deliveries.failedIds("w1"), []);
    assert.equal(await deliveries.delivery("d00"), null);
    assert.deepEqual(await deliveries.attempts("d05"), []);
    assert.deepEqual(await Array.fromAsync(deliveries.overdue(Infinity)), []);
    // Another configuration's deliveries stay; finishing removals again changes nothing.
    await webhooks.resumeRemovals();
    assert.deepEqual(await deliveries.body((await deliveries.delivery("k1"))!.row), bytes(5));
  });

  test("blocked flags: set together, listed, cleared only by their own event", async ({ port }) => {
    const { webhooks, deliveries } = port;
    const blocked = { ...failureFlag(null, "blocked"), eventId: "ev1" };
    await webhooks.flagBlocked(["w1", "w2"], blocked);
    assert.deepEqual(await webhooks.blockedFlags(), new Map([["w1", "ev1"], ["w2", "ev1"]]));
    const flags = await webhooks.flags(["w1", "w2", "w3"]);
    assert.deepEqual([...flags.keys()].sort(), ["w1", "w2"]);
    assert.deepEqual(flags.get("w1"), blocked);
    await webhooks.unflagBlocked("w1", "ev2");
    assert.deepEqual(await webhooks.flag("w1"), blocked, "another event's clearing does nothing");
    await webhooks.unflagBlocked("w1", "ev1");
    assert.equal(await webhooks.flag("w1"), null);
    // A failure flagged since the block stays when the event goes through.
    await deliveries.createDelivery(
      { state: pendingRow("d1", "w2"), failure: { flag: failureFlag("d1", "exhausted") } },
      null,
    );
    await webhooks.unflagBlocked("w2", "ev1");
    assert.equal((await webhooks.flag("w2"))?.reason, "exhausted");
    assert.deepEqual(await webhooks.blockedFlags(), new Map());
    await webhooks.clearFlag("w2");
    await webhooks.clearFlag("w2");
    assert.equal(await webhooks.flag("w2"), null);
    // Many at once (more than one read's worth).
    const ids = Array.from({ length: 25 }, (_, i) => `m${i}`);
    await webhooks.flagBlocked(ids, blocked);
    assert.equal((await webhooks.flags(ids)).size, 25);
  });

  test("a delivery is created once, with its body, small or large", async ({ port, emit }) => {
    const { deliveries, recordEvents } = port;
    for (const [id, size] of [["small", 2], ["ref", 16 * 1024], ["parts", 200_000]] as const) {
      const body = bytes(size, size % 251);
      assert.equal(await deliveries.createDelivery({ state: pendingRow(id) }, body), true);
      const stored = await deliveries.delivery(id);
      assert.equal(stored?.row.id, id);
      assert.deepEqual(await deliveries.body(stored!.row), body, id);
      const due = await deliveries.due({ webhookId: "w1", deliveryId: id, token: "" });
      assert.deepEqual(due?.body, body, `${id} as due`);
    }
    const none = pendingRow("none", "w1", { status: "skipped" });
    assert.equal(await deliveries.createDelivery({ state: none }, null), true);
    assert.deepEqual(await deliveries.body((await deliveries.delivery("none"))!.row), bytes(0));
    // Created again (a replayed event): false, and nothing that came with it is written.
    const stored = await emit(recordEvent("ev1"));
    const again = await deliveries.createDelivery(
      { state: pendingRow("small", "w1", { lastError: "again" }) },
      bytes(3),
      recordEvents.removal(stored),
    );
    assert.equal(again, false);
    assert.equal((await deliveries.delivery("small"))?.row.lastError, null);
    assert.deepEqual(await deliveries.body((await deliveries.delivery("small"))!.row), bytes(2, 2));
    const left = await recordEvents.scan({ skip: () => false, limit: 10 });
    assert.deepEqual(left.events.map((e) => e.event.eventId), ["ev1"]);
    assert.equal(await deliveries.delivery("missing"), null);
  });

  test("a delivery created with its event's removal takes the event out", async ({ port, emit }) => {
    const { deliveries, recordEvents } = port;
    const big = await emit(recordEvent("ev1", { note: "n".repeat(150_000) }));
    const small = await emit(recordEvent("ev2"));
    assert.ok(
      await deliveries.createDelivery(
        { state: pendingRow("d1") },
        bytes(2),
        recordEvents.removal(big),
      ),
    );
    assert.ok(
      await deliveries.createDelivery(
        { state: pendingRow("d2") },
        bytes(2),
        recordEvents.removal(small),
      ),
    );
    assert.deepEqual((await recordEvents.scan({ skip: () => false, limit: 10 })).events, []);
  });

  test("an update applies only to the revision read", async ({ port }) => {
    const { deliveries } = port;
    await deliveries.createDelivery({ state: pendingRow("d1") }, bytes(2));
    const read = (await deliveries.delivery("d1"))!;
    const first: DeliveryChange = {
      state: { ...read.row, attempts: 1, lastStatus: 503 },
      attempt: attemptRow(1),
    };
    assert.equal(await deliveries.updateDelivery(read, first), true);
    // The same revision again: refused, nothing of it written.
    const second = {
      state: { ...read.row, attempts: 1, lastStatus: 200 },
      attempt: attemptRow(1, 200),
    };
    assert.equal(await deliveries.updateDelivery(read, second), false);
    assert.equal((await deliveries.delivery("d1"))?.row.lastStatus, 503);
    assert.deepEqual(await deliveries.attempts("d1"), [attemptRow(1)]);
    // Concurrent writers of the same revision: exactly one wins.
    const now = (await deliveries.delivery("d1"))!;
    const results = await Promise.all(
      [1, 2, 3].map((n) => deliveries.updateDelivery(now, { state: { ...now.row, round: n } })),
    );
    assert.equal(results.filter(Boolean).length, 1);
    const round = (await deliveries.delivery("d1"))!.row.round;
    assert.equal(results[round - 1], true);
  });

  test("attempts are rows of their own, the newest 50 kept, oldest first", async ({ port }) => {
    const { deliveries } = port;
    await deliveries.createDelivery({ state: pendingRow("d1") }, bytes(2));
    const total = MAX_LOGGED_ATTEMPTS + 5;
    for (let n = 1; n <= total; n++) {
      const stored = (await deliveries.delivery("d1"))!;
      const change = { state: { ...stored.row, attempts: n }, attempt: attemptRow(n) };
      assert.ok(await deliveries.updateDelivery(stored, change));
    }
    const attempts = await deliveries.attempts("d1");
    assert.deepEqual(attempts.map((a) => a.n), Array.from({ length: 50 }, (_, i) => i + 6));
    assert.deepEqual(attempts[0], attemptRow(6));
    assert.equal((await deliveries.delivery("d1"))?.row.attempts, total);
    assert.deepEqual(await deliveries.attempts("other"), []);
  });

  test("pages: newest first, the failed ones alone, cursors, a foreign cursor refused", async ({ port }) => {
    const { deliveries, webhooks } = port;
    const ids = Array.from({ length: 7 }, (_, i) => `d${i}`);
    for (const id of ids) {
      const failed = id === "d2" || id === "d5";
      const change: DeliveryChange = failed
        ? {
          state: pendingRow(id, "w1", { status: "failed" }),
          failure: { flag: failureFlag(id, "permanent") },
        }
        : { state: pendingRow(id) };
      await deliveries.createDelivery(change, bytes(2));
    }
    await deliveries.createDelivery({ state: pendingRow("z9", "w2") }, bytes(2));
    const first = await deliveries.deliveries("w1", { limit: 3 });
    assert.deepEqual(first.items.map((d) => d.id), ["d6", "d5", "d4"]);
    assert.ok(first.nextCursor);
    const second = await deliveries.deliveries("w1", { limit: 3, cursor: first.nextCursor });
    assert.deepEqual(second.items.map((d) => d.id), ["d3", "d2", "d1"]);
    const last = await deliveries.deliveries("w1", { limit: 3, cursor: second.nextCursor! });
    assert.deepEqual(last.items.map((d) => d.id), ["d0"]);
    assert.equal(last.nextCursor, null);
    const failed = await deliveries.deliveries("w1", { failed: true, limit: 10 });
    assert.deepEqual(failed.items.map((d) => d.id), ["d5", "d2"]);
    assert.deepEqual((await deliveries.failedIds("w1")).sort(), ["d2", "d5"]);
    assert.equal((await webhooks.flag("w1"))?.deliveryId, "d5");
    const other = await deliveries.deliveries("w2", { limit: 1 });
    await assert.rejects(
      deliveries.deliveries("w1", { limit: 3, cursor: "!!!" }),
      InvalidCursorError,
    );
    assert.deepEqual(other.items.map((d) => d.id), ["z9"]);
  });

  test("a failure is listed and flagged; clearing unlists it and clears the flag", async ({ port }) => {
    const { deliveries, webhooks } = port;
    await deliveries.createDelivery({ state: pendingRow("d1") }, bytes(2));
    const read = (await deliveries.delivery("d1"))!;
    const failed = { ...read.row, status: "failed" as const, attempts: 1 };
    const flag = failureFlag("d1", "exhausted");
    assert.ok(
      await deliveries.updateDelivery(read, {
        state: failed,
        attempt: attemptRow(1),
        failure: { flag },
      }),
    );
    assert.deepEqual(await deliveries.failedIds("w1"), ["d1"]);
    assert.deepEqual(await webhooks.flag("w1"), flag);
    const again = (await deliveries.delivery("d1"))!;
    const retried = { ...again.row, status: "pending" as const, token: "t2" };
    assert.ok(
      await deliveries.updateDelivery(again, {
        state: retried,
        schedule: { dueAt: Date.now() + 3_600_000 },
        failure: "clear",
      }),
    );
    assert.deepEqual(await deliveries.failedIds("w1"), []);
    assert.equal(await webhooks.flag("w1"), null);
  });

  test("the schedule: overdue lists pending deliveries due before the time, nothing else", async ({ port }) => {
    const { deliveries } = port;
    const now = Date.now();
    const far = now + 3_600_000;
    const plan: [string, number | null, WebhookDelivery["status"]][] = [
      ["late", now - 5_000, "pending"],
      ["soon", far, "pending"],
      ["unscheduled", null, "pending"],
    ];
    for (const [id, dueAt, status] of plan) {
      const state = pendingRow(id, "w1", { status, token: `t_${id}` });
      await deliveries.createDelivery(
        dueAt === null ? { state } : { state, schedule: { dueAt } },
        bytes(2),
      );
    }
    const ids = async (before: number) =>
      (await Array.fromAsync(deliveries.overdue(before))).map((s) => s.row.id).sort();
    assert.deepEqual(await ids(now), ["late"]);
    assert.deepEqual(await ids(far + 1), ["late", "soon"]);
    // Done with (delivered, the schedule dropped), or done with and the schedule left: gone.
    const late = (await deliveries.delivery("late"))!;
    assert.ok(
      await deliveries.updateDelivery(late, {
        state: { ...late.row, status: "delivered" },
        schedule: null,
      }),
    );
    const soon = (await deliveries.delivery("soon"))!;
    assert.ok(await deliveries.updateDelivery(soon, { state: { ...soon.row, status: "failed" } }));
    assert.deepEqual(await ids(far + 1), []);
    // What overdue yields carries a revision fit for the re-arm.
    const state = pendingRow("again", "w1", { token: "a" });
    await deliveries.createDelivery({ state, schedule: { dueAt: now - 1 } }, bytes(2));
    const [found] = await Array.fromAsync(deliveries.overdue(now));
    assert.ok(
      await deliveries.updateDelivery(found, {
        state: { ...found.row, token: "b" },
        schedule: { dueAt: far },
      }),
    );
    assert.deepEqual(await ids(now), []);
    // Many late ones, every third done with since (its schedule left behind).
    const many = Array.from({ length: 23 }, (_, i) => `m${String(i).padStart(2, "0")}`);
    for (const id of many) {
      await deliveries.createDelivery(
        { state: pendingRow(id, "w2"), schedule: { dueAt: now - 10 } },
        bytes(2),
      );
    }
    for (const id of many.filter((_, i) => i % 3 === 0)) {
      const done = (await deliveries.delivery(id))!;
      await deliveries.updateDelivery(done, { state: { ...done.row, status: "delivered" } });
    }
    const pending = many.filter((_, i) => i % 3 !== 0);
    assert.deepEqual(await ids(now), pending);
    assert.deepEqual(await ids(now), pending, "the same again: nothing else changed");
  });

  test("scheduled attempts come due with their token; redelivered ones come again", async ({ port }) => {
    const { deliveries } = port;
    const came: ScheduledAttempt[] = [];
    const { promise: three, resolve } = Promise.withResolvers<void>();
    deliveries.onDue((attempt) => {
      came.push(attempt);
      if (came.length === 3) resolve();
      return Promise.resolve();
    });
    const started = Date.now();
    const state = pendingRow("d1", "w1", { token: "t1" });
    await deliveries.createDelivery({ state, schedule: { dueAt: started + 200 } }, bytes(2));
    const attempt: ScheduledAttempt = { webhookId: "w1", deliveryId: "d1", token: "t1" };
    while (came.length === 0) await new Promise((r) => setTimeout(r, 10));
    assert.ok(Date.now() - started >= 150, "not before it was due");
    assert.deepEqual(came[0], attempt);
    // `due` answers while the delivery waits for that token, and only then.
    const due = await deliveries.due(attempt);
    assert.equal(due?.row.id, "d1");
    assert.deepEqual(due?.body, bytes(2));
    assert.equal(await deliveries.due({ ...attempt, token: "stale" }), null);
    await deliveries.redeliver(attempt, 0);
    await deliveries.redeliver({ ...attempt, token: "old" }, 50);
    await three;
    assert.deepEqual(came.slice(1).map((a) => a.token).sort(), ["old", "t1"]);
    const stored = (await deliveries.delivery("d1"))!;
    await deliveries.updateDelivery(stored, { state: { ...stored.row, status: "delivered" } });
    assert.equal(await deliveries.due(attempt), null, "done with: no attempt is due");
  });

  test("a purge deletes a delivery and all it owns, unless it changed", async ({ port }) => {
    const { deliveries, webhooks } = port;
    await deliveries.createDelivery(
      {
        state: pendingRow("d1", "w1", { attempts: 1, token: "t" }),
        attempt: attemptRow(1),
        schedule: { dueAt: Date.now() - 1 },
        failure: { flag: failureFlag("d1", "permanent") },
      },
      bytes(100_000),
    );
    const read = (await deliveries.delivery("d1"))!;
    await deliveries.updateDelivery(read, { state: { ...read.row, lastError: "x" } });
    assert.equal(await deliveries.purgeDelivery(read), false, "it changed since");
    assert.ok(await deliveries.delivery("d1"));
    assert.equal(await deliveries.purgeDelivery((await deliveries.delivery("d1"))!), true);
    assert.equal(await deliveries.delivery("d1"), null);
    assert.deepEqual(await deliveries.attempts("d1"), []);
    assert.deepEqual(await deliveries.failedIds("w1"), []);
    assert.deepEqual(await Array.fromAsync(deliveries.overdue(Infinity)), []);
    assert.deepEqual((await deliveries.deliveries("w1", { limit: 10 })).items, []);
    // The configuration's flag is the configuration's: it stays until cleared.
    assert.equal((await webhooks.flag("w1"))?.reason, "permanent");
  });

  test("counts by state: pending with a schedule, listed as failed, each up to a cap", async ({ port }) => {
    const { deliveries } = port;
    assert.deepEqual(await deliveries.countByState(100), { pending: 0, failed: 0 });
    const soon = { dueAt: Date.now() + 3_600_000 };
    for (let i = 0; i < 6; i++) {
      await deliveries.createDelivery({ state: pendingRow(`p${i}`), schedule: soon }, bytes(2));
    }
    for (let i = 0; i < 3; i++) {
      await deliveries.createDelivery({
        state: pendingRow(`f${i}`, "w2", { status: "failed" }),
        failure: { flag: failureFlag(`f${i}`, "exhausted") },
      }, bytes(2));
    }
    await deliveries.createDelivery(
      { state: pendingRow("ok", "w1", { status: "delivered" }) },
      null,
    );
    assert.deepEqual(await deliveries.countByState(100), { pending: 6, failed: 3 });
    assert.deepEqual(await deliveries.countByState(4), { pending: 4, failed: 3 });
    // Done with (the schedule dropped), retried (unlisted): counted no more.
    const p0 = (await deliveries.delivery("p0"))!;
    await deliveries.updateDelivery(p0, {
      state: { ...p0.row, status: "delivered" },
      schedule: null,
    });
    const f0 = (await deliveries.delivery("f0"))!;
    await deliveries.updateDelivery(f0, {
      state: { ...f0.row, status: "pending", token: "t" },
      schedule: soon,
      failure: "clear",
    });
    assert.deepEqual(await deliveries.countByState(100), { pending: 6, failed: 2 });
  });

  test("concurrent deliveries: all written; a replayed one fails alone", async ({ port }) => {
    const { deliveries } = port;
    await deliveries.createDelivery(
      { state: pendingRow("d07", "w1", { lastError: "first" }) },
      bytes(1),
    );
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => {
        const id = `d${String(i).padStart(2, "0")}`;
        return deliveries.createDelivery(
          { state: pendingRow(id), attempt: attemptRow(1, 200) },
          bytes(2_000 + i),
        );
      }),
    );
    assert.deepEqual(
      results.map((ok, i) => [i, ok]).filter(([, ok]) => !ok),
      [[7, false]],
    );
    await deliveries.idle();
    const page = await deliveries.deliveries("w1", { limit: 100 });
    assert.equal(page.items.length, 40);
    assert.equal((await deliveries.delivery("d07"))?.row.lastError, "first");
    assert.deepEqual(await deliveries.body((await deliveries.delivery("d39"))!.row), bytes(2_039));
    assert.deepEqual(await deliveries.attempts("d39"), [attemptRow(1, 200)]);
  });
}
