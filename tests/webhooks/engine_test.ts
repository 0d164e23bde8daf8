import assert from "node:assert/strict";
import { emitRecordEvent } from "../../src/store/kv/record_events.ts";
import { KvWrite } from "../../src/store/kv/write.ts";
import { verifyWebhookSignature } from "../../src/sdk/mod.ts";
import { patchConfig } from "../../src/webhooks/config.ts";
import { deliveryRow } from "./_delivery_row.ts";
import { PYTHON } from "../_support/python.ts";
import {
  FIELDS,
  freePort,
  type Harness,
  pythonSignature,
  type Received,
  startHarness,
  startReceiver,
  until,
} from "./_harness.ts";

const SECRET = "whsec_dGVzdC1zaWduaW5nLXNlY3JldC0wMTIzNDU2Nzg5";
const VALUES = { name: "Ada", age: 36, tags: ["math", "poetry"] };
const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, fn, sanitizeResources: false, sanitizeOps: false });

/** The events left in the harness's outbox. */
async function outboxEvents(h: Harness) {
  return (await h.recordEvents.scan({ skip: () => false, limit: 100 })).events;
}

/** Every request must carry a valid signature: checked by the SDK and by python3's hmac. */
async function assertSigned(r: Received, secret = SECRET) {
  const header = r.headers.get("x-service-signature");
  assert.ok(verifyWebhookSignature(r.raw, header, secret), "SDK rejects the signature");
  assert.equal(header, await pythonSignature(PYTHON, secret, r.raw), "python3 hmac disagrees");
}

test("2xx: delivered once, signed over the raw bytes, snippet surfaced", async () => {
  const receiver = startReceiver(() => new Response("thanks\r\nfor\n\nall", { status: 201 }));
  const h = await startHarness();
  try {
    const hook = await h.addWebhook({ url: receiver.url, signingSecret: SECRET });
    const event = await h.emit(VALUES);
    const row = await h.waitStatus(event, hook.id, "delivered");
    const [r] = await receiver.waitFor(1);
    assert.equal(r.method, "POST");
    assert.equal(r.headers.get("content-type"), "application/json; charset=utf-8");
    assert.deepEqual(JSON.parse(r.text), {
      _recordId: event.recordId,
      _formId: "contact",
      _savedAt: event.savedAt,
      _reason: "insert",
      name: "Ada",
      age: 36,
      tags: ["math", "poetry"],
    });
    await assertSigned(r);
    assert.equal(row.attempts, 1);
    assert.equal(row.lastStatus, 201);
    assert.equal(row.lastSnippet, "thanks for all");
    const attempts = await h.deliveries.attempts(row.id);
    assert.equal(attempts.length, 1);
    assert.equal(attempts[0].outcome, "delivered");
    assert.equal(attempts[0].status, 201);
    assert.equal(attempts[0].snippet, "thanks for all");
    assert.equal(attempts[0].error, null);
    assert.ok(attempts[0].durationMs >= 0);
    // The body is kept as sent; the event left the outbox; nothing is scheduled.
    assert.equal(row.bodyBytes, r.raw.length);
    assert.deepEqual(await h.deliveries.body(row), r.raw);
    assert.deepEqual(await outboxEvents(h), []);
    assert.deepEqual(await Array.fromAsync(h.deliveries.overdue(Infinity)), []);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(receiver.received.length, 1);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test("3xx: counted as delivered, the redirect is not followed", async () => {
  const receiver = startReceiver((_, r) =>
    r.path === "/hook"
      ? new Response("moved", { status: 302, headers: { location: "/elsewhere" } })
      : new Response("followed!", { status: 200 })
  );
  const h = await startHarness();
  try {
    const hook = await h.addWebhook({ url: receiver.url });
    const event = await h.emit(VALUES);
    const row = await h.waitStatus(event, hook.id, "delivered");
    assert.equal(row.lastStatus, 302);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(receiver.received.map((r) => r.path), ["/hook"]);
  } finally {
    await h.close();
    await receiver.close();
  }
});

for (const status of [408, 429, 500, 502, 503]) {
  test(`${status}: transient, re-queued after the schedule, same _recordId and bytes again`, async () => {
    const receiver = startReceiver((n) =>
      new Response(n === 1 ? "busy" : "ok", { status: n === 1 ? status : 200 })
    );
    const h = await startHarness();
    try {
      const hook = await h.addWebhook({ url: receiver.url, signingSecret: SECRET });
      const event = await h.emit(VALUES);
      const row = await h.waitStatus(event, hook.id, "delivered");
      const [first, second] = await receiver.waitFor(2);
      const gap = second.at - first.at;
      assert.ok(gap >= 190 && gap < 1500, `second attempt after ${gap} ms, schedule says 200`);
      assert.equal(JSON.parse(first.text)._recordId, event.recordId);
      assert.equal(JSON.parse(second.text)._recordId, event.recordId);
      assert.deepEqual(second.raw, first.raw, "rendered once: identical bytes");
      assert.equal(
        second.headers.get("x-service-signature"),
        first.headers.get("x-service-signature"),
      );
      await assertSigned(first);
      await assertSigned(second);
      const attempts = await h.deliveries.attempts(row.id);
      assert.deepEqual(attempts.map((a) => [a.status, a.outcome]), [
        [status, "transient"],
        [200, "delivered"],
      ]);
      assert.equal(attempts[0].snippet, "busy");
      assert.equal(row.attempts, 2);
    } finally {
      await h.close();
      await receiver.close();
    }
  });
}

test("a body too large for its ref: stored as parts, sent again byte for byte", async () => {
  let calls = 0;
  const receiver = startReceiver(() =>
    ++calls === 1 ? new Response("busy", { status: 503 }) : new Response("ok")
  );
  const h = await startHarness();
  try {
    const hook = await h.addWebhook({ url: receiver.url, signingSecret: SECRET });
    const event = await h.emit({ ...VALUES, name: "x".repeat(40_000) });
    const row = await h.waitStatus(event, hook.id, "delivered");
    assert.equal("body" in row, false);
    assert.ok(row.bodyParts >= 1 && row.bodyBytes > 40_000, JSON.stringify(row.bodyBytes));
    const [first, second] = await receiver.waitFor(2);
    assert.equal(first.raw.length, row.bodyBytes);
    assert.deepEqual(second.raw, first.raw);
    await assertSigned(second);
    assert.deepEqual(await h.deliveries.body(row), first.raw);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test("network error: transient; delivered once the receiver is up", async () => {
  const port = freePort();
  const h = await startHarness({ retry_schedule_seconds: [0, 0.3, 0.3, 0.3, 0.3, 0.3] });
  let receiver: ReturnType<typeof startReceiver> | null = null;
  try {
    const hook = await h.addWebhook({ url: `http://127.0.0.1:${port}/hook` });
    const event = await h.emit(VALUES);
    const pending = await until(async () => {
      const row = await h.deliveryOf(event, hook.id);
      return row && row.attempts >= 1 ? row : null;
    }, "a failed first attempt");
    assert.equal(pending.status, "pending");
    assert.equal(pending.lastStatus, null);
    assert.match(pending.lastError!, /Connection refused/);
    assert.ok(!pending.lastError!.includes(`:${port}`), "the URL stays out of the error");
    receiver = startReceiver(() => new Response("up"), port);
    const row = await h.waitStatus(event, hook.id, "delivered");
    const attempts = await h.deliveries.attempts(row.id);
    assert.equal(attempts[0].outcome, "transient");
    assert.equal(attempts[0].status, null);
    assert.equal(attempts.at(-1)!.outcome, "delivered");
    assert.equal(JSON.parse(receiver.received[0].text)._recordId, event.recordId);
  } finally {
    await h.close();
    await receiver?.close();
  }
});

test("timeout: transient, then delivered", async () => {
  const receiver = startReceiver(async (n) => {
    if (n === 1) await new Promise((r) => setTimeout(r, 1500));
    return new Response("ok");
  });
  const h = await startHarness({ request_timeout_seconds: 0.5 });
  try {
    const hook = await h.addWebhook({ url: receiver.url });
    const event = await h.emit(VALUES);
    const row = await h.waitStatus(event, hook.id, "delivered");
    const attempts = await h.deliveries.attempts(row.id);
    assert.equal(attempts[0].outcome, "transient");
    assert.equal(attempts[0].error, "Timed out after 0.5 s");
    assert.ok(attempts[0].durationMs >= 450 && attempts[0].durationMs < 1400);
    assert.equal(attempts[1].outcome, "delivered");
    const [first, second] = await receiver.waitFor(2);
    assert.equal(JSON.parse(first.text)._recordId, JSON.parse(second.text)._recordId);
  } finally {
    await h.close();
    await receiver.close();
  }
});

for (const status of [400, 401, 404, 410, 422]) {
  test(`${status}: permanent failure, flagged for the owner, no retry`, async () => {
    const receiver = startReceiver(() => new Response(`no ${status}\n`, { status }));
    const h = await startHarness();
    try {
      const hook = await h.addWebhook({ url: receiver.url });
      const event = await h.emit(VALUES);
      const row = await h.waitStatus(event, hook.id, "failed");
      assert.equal(row.attempts, 1);
      assert.equal(row.lastStatus, status);
      assert.equal(row.lastSnippet, `no ${status}`);
      const flag = await h.webhooks.flag(hook.id);
      assert.equal(flag?.reason, "permanent");
      assert.equal(flag?.deliveryId, row.id);
      assert.equal(flag?.status, status);
      const failed = await h.deliveries.deliveries(hook.id, { failed: true, limit: 10 });
      assert.deepEqual(failed.items.map((d) => d.id), [row.id]);
      const line = await until(
        () => h.logs.map((l) => JSON.parse(l)).find((l) => l.msg === "Webhook delivery failed"),
        "the failure log line",
      );
      assert.deepEqual(
        [line.deliveryId, line.reason, line.status, line.level],
        [row.id, "permanent", status, "warn"],
      );
      assert.ok(!JSON.stringify(h.logs).includes(receiver.url), "no URL in logs");
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(receiver.received.length, 1);
    } finally {
      await h.close();
      await receiver.close();
    }
  });
}

test("backoff: the schedule is followed, then the delivery fails as exhausted", async () => {
  const receiver = startReceiver(() => new Response("down", { status: 503 }));
  const h = await startHarness({ retry_schedule_seconds: [0, 0.2, 0.4, 0.6] });
  try {
    const hook = await h.addWebhook({ url: receiver.url });
    const event = await h.emit(VALUES);
    const row = await h.waitStatus(event, hook.id, "failed");
    const received = receiver.received;
    assert.equal(received.length, 4);
    const gaps = [1, 2, 3].map((i) => received[i].at - received[i - 1].at);
    for (const [i, expected] of [200, 400, 600].entries()) {
      assert.ok(
        gaps[i] >= expected - 10 && gaps[i] < expected + 600,
        `gap ${i + 1} was ${gaps[i]} ms, expected about ${expected}`,
      );
    }
    assert.equal(row.attempts, 4);
    assert.equal((await h.webhooks.flag(hook.id))?.reason, "exhausted");
    assert.deepEqual(await Array.fromAsync(h.deliveries.overdue(Infinity)), []);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test("jitter: each wait is the scheduled one plus at most jitter_ratio of it", async () => {
  const receiver = startReceiver((n) => new Response(null, { status: n < 3 ? 500 : 204 }));
  const h = await startHarness({ retry_schedule_seconds: [0, 0.3, 0.3], jitter_ratio: 1 });
  try {
    const hook = await h.addWebhook({ url: receiver.url });
    await h.waitStatus(await h.emit(VALUES), hook.id, "delivered");
    const r = receiver.received;
    for (const gap of [r[1].at - r[0].at, r[2].at - r[1].at]) {
      assert.ok(gap >= 290 && gap < 1200, `gap ${gap} ms outside 300..600 (+slack)`);
    }
  } finally {
    await h.close();
    await receiver.close();
  }
});

test("Retry-After in delta-seconds raises the wait (capped)", async () => {
  const receiver = startReceiver((n) =>
    n === 1
      ? new Response("slow down", { status: 429, headers: { "retry-after": "1" } })
      : n === 2
      ? new Response("later", { status: 503, headers: { "retry-after": "3600" } })
      : new Response("ok")
  );
  const h = await startHarness({ retry_after_max_seconds: 1.5 });
  try {
    const hook = await h.addWebhook({ url: receiver.url });
    const event = await h.emit(VALUES);
    const row = await h.waitStatus(event, hook.id, "delivered", 15_000);
    const r = receiver.received;
    const first = r[1].at - r[0].at;
    const second = r[2].at - r[1].at;
    assert.ok(first >= 990 && first < 2000, `Retry-After: 1 gave a wait of ${first} ms`);
    assert.ok(second >= 1490 && second < 2500, `Retry-After: 3600 (cap 1.5 s) gave ${second} ms`);
    const attempts = await h.deliveries.attempts(row.id);
    assert.deepEqual(attempts.map((a) => a.retryAfterSeconds), [1, 3600, null]);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test("Retry-After as an HTTP-date raises the wait", async () => {
  let until2 = 0;
  const receiver = startReceiver((n) => {
    if (n > 1) return new Response("ok");
    // A whole second at least 1 s ahead (HTTP-dates have 1-second resolution).
    until2 = (Math.floor(Date.now() / 1000) + 2) * 1000;
    return new Response("busy", {
      status: 503,
      headers: { "retry-after": new Date(until2).toUTCString() },
    });
  });
  const h = await startHarness({ retry_after_max_seconds: 10 });
  try {
    const hook = await h.addWebhook({ url: receiver.url });
    const event = await h.emit(VALUES);
    const row = await h.waitStatus(event, hook.id, "delivered", 15_000);
    const attempts = await h.deliveries.attempts(row.id);
    assert.ok(attempts[0].retryAfterSeconds! > 0.9 && attempts[0].retryAfterSeconds! <= 2);
    assert.ok(
      Date.parse(attempts[1].at) >= until2 - 20,
      `second attempt at ${attempts[1].at}, before the Retry-After date`,
    );
  } finally {
    await h.close();
    await receiver.close();
  }
});

test("manual retry: one delivery, then all failed ones; the flag clears; editing clears it", async () => {
  let healthy = false;
  const receiver = startReceiver(() =>
    healthy ? new Response("ok") : new Response("gone", { status: 410 })
  );
  const h = await startHarness();
  try {
    const hook = await h.addWebhook({ url: receiver.url });
    const events = [await h.emit(VALUES), await h.emit(VALUES), await h.emit(VALUES)];
    const failed = [];
    for (const e of events) failed.push(await h.waitStatus(e, hook.id, "failed"));
    assert.equal((await h.webhooks.flag(hook.id))?.reason, "permanent");
    assert.equal(
      (await h.deliveries.deliveries(hook.id, { failed: true, limit: 10 })).items.length,
      3,
    );

    healthy = true;
    const entry = await h.deliveries.delivery(failed[0].id);
    await h.engine.retry(entry!);
    assert.equal(await h.webhooks.flag(hook.id), null, "retry clears the flag");
    const retried = await h.waitStatus(events[0], hook.id, "delivered");
    assert.equal(retried.attempts, 2);
    assert.equal(
      (await h.deliveries.deliveries(hook.id, { failed: true, limit: 10 })).items.length,
      2,
    );

    assert.equal(await h.engine.retryFailed(hook.id), 2);
    for (const e of events.slice(1)) await h.waitStatus(e, hook.id, "delivered");
    assert.equal(
      (await h.deliveries.deliveries(hook.id, { failed: true, limit: 10 })).items.length,
      0,
    );
    const ids = receiver.received.map((r) => JSON.parse(r.text)._recordId);
    for (const e of events) assert.equal(ids.filter((id) => id === e.recordId).length, 2);

    // A delivered one can be sent again on request.
    await h.engine.retry((await h.deliveries.delivery(failed[0].id))!);
    await receiver.waitFor(7);

    // A new failure flags again; editing the configuration clears the flag.
    healthy = false;
    const next = await h.emit(VALUES);
    await h.waitStatus(next, hook.id, "failed");
    assert.ok(await h.webhooks.flag(hook.id));
    const before = (await h.webhooks.config(hook.id))!;
    await h.webhooks.updateConfig(before, {
      ...before,
      name: "fixed",
      updatedAt: new Date().toISOString(),
    });
    assert.equal(await h.webhooks.flag(hook.id), null);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test("the owner's fix applies on retry: new URL, the same rendered body", async () => {
  const good = startReceiver(() => new Response("ok"));
  const bad = startReceiver(() => new Response("no such hook", { status: 404 }));
  const h = await startHarness();
  try {
    const hook = await h.addWebhook({ url: bad.url, signingSecret: SECRET });
    const event = await h.emit(VALUES);
    const failed = await h.waitStatus(event, hook.id, "failed");
    const before = (await h.webhooks.config(hook.id))!;
    await h.webhooks.updateConfig(before, {
      ...before,
      url: good.url,
      mappings: { name: "who" },
      updatedAt: new Date().toISOString(),
    });
    await h.engine.retry((await h.deliveries.delivery(failed.id))!);
    await h.waitStatus(event, hook.id, "delivered");
    const [r] = await good.waitFor(1);
    assert.deepEqual(r.raw, bad.received[0].raw, "the body was rendered once, at the event");
    await assertSigned(r);
  } finally {
    await h.close();
    await good.close();
    await bad.close();
  }
});

test("events: delete is consumed with no HTTP call; each configuration fires on its events", async () => {
  const receiver = startReceiver(() => new Response("ok"));
  const h = await startHarness();
  try {
    const all = await h.addWebhook({
      url: `${receiver.url}?all`,
      events: ["create", "update", "delete"],
    });
    const createOnly = await h.addWebhook({ url: `${receiver.url}?create`, events: ["create"] });
    const insert = await h.emit(VALUES);
    await h.waitStatus(insert, all.id, "delivered");
    await h.waitStatus(insert, createOnly.id, "delivered");
    const update = await h.emit({ ...VALUES, age: 37 }, {
      reason: "update",
      recordId: insert.recordId,
    });
    const updated = await h.waitStatus(update, all.id, "delivered");
    const del = await h.emit({}, { reason: "delete", recordId: insert.recordId });
    const skipped = await h.waitStatus(del, all.id, "skipped");
    assert.equal(skipped.attempts, 0);
    assert.equal(skipped.reason, "delete");
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(receiver.received.length, 3, "insert twice, update once, delete never");
    assert.equal(await h.deliveryOf(update, createOnly.id), null);
    assert.equal(await h.deliveryOf(del, createOnly.id), null);
    const updateBody = JSON.parse(
      receiver.received.find((r) => JSON.parse(r.text)._reason === "update")!.text,
    );
    assert.equal(updateBody._recordId, insert.recordId);
    assert.equal(updateBody.age, 37);
    assert.equal(updated.reason, "update");
    await assert.rejects(
      h.engine.retry((await h.deliveries.delivery(skipped.id))!),
      /delete event: no HTTP call/,
    );
  } finally {
    await h.close();
    await receiver.close();
  }
});

/**
 * A receiver that holds each request `holdMs` and records, per `X-Hook` header value, the
 * most requests it had in flight at once.
 */
function startPeakReceiver(holdMs: number) {
  const inFlight = new Map<string, number>();
  const peak = new Map<string, number>();
  const receiver = startReceiver(async (_, r) => {
    const key = r.headers.get("x-hook")!;
    inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
    peak.set(key, Math.max(peak.get(key) ?? 0, inFlight.get(key)!));
    await new Promise((resolve) => setTimeout(resolve, holdMs));
    inFlight.set(key, inFlight.get(key)! - 1);
    return new Response("ok");
  });
  return { receiver, peak };
}

test("concurrency: at most concurrency_per_webhook requests in flight per configuration", async () => {
  const { receiver, peak } = startPeakReceiver(150);
  const h = await startHarness({ concurrency_per_webhook: 2 });
  try {
    const a = await h.addWebhook({ url: receiver.url, headers: ["X-Hook: a"] });
    const b = await h.addWebhook({ url: receiver.url, headers: ["X-Hook: b"] });
    const events = [];
    for (let i = 0; i < 8; i++) events.push(await h.emit({ name: `n${i}` }));
    for (const e of events) {
      await h.waitStatus(e, a.id, "delivered");
      await h.waitStatus(e, b.id, "delivered");
    }
    assert.equal(peak.get("a"), 2);
    assert.equal(peak.get("b"), 2);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test("concurrency: a configuration's own limit overrides the instance's; an edit applies", async () => {
  const { receiver, peak } = startPeakReceiver(100);
  const h = await startHarness({ concurrency_per_webhook: 4 });
  /** Emits `n` events; resolves once each is delivered to both configurations. */
  const burst = async (n: number, hooks: string[]) => {
    const events = [];
    for (let i = 0; i < n; i++) events.push(await h.emit({ name: `n${i}` }));
    for (const e of events) for (const id of hooks) await h.waitStatus(e, id, "delivered");
  };
  try {
    const one = await h.addWebhook({ url: receiver.url, headers: ["X-Hook: one"], concurrency: 1 });
    const dflt = await h.addWebhook({ url: receiver.url, headers: ["X-Hook: default"] });
    assert.equal(one.concurrency, 1);
    assert.equal(dflt.concurrency, null);
    await burst(6, [one.id, dflt.id]);
    assert.equal(peak.get("one"), 1, "concurrency 1: one request at a time");
    assert.ok(peak.get("default")! > 1, `the instance default: ${peak.get("default")} at most`);
    assert.ok(peak.get("default")! <= 4);

    // Down to 1 by an edit: the engine reads the configuration anew for each request.
    const { row: edited } = patchConfig(dflt, { concurrency: 1 });
    await h.webhooks.updateConfig(dflt, edited);
    peak.clear();
    await burst(4, [one.id, dflt.id]);
    assert.equal(peak.get("default"), 1);
    assert.equal(peak.get("one"), 1);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test("duplicate and stale attempt messages do nothing", async () => {
  const receiver = startReceiver(async () => {
    await new Promise((r) => setTimeout(r, 200));
    return new Response("ok");
  });
  const h = await startHarness({ retry_schedule_seconds: [0.3] });
  try {
    const hook = await h.addWebhook({ url: receiver.url });
    const event = await h.emit(VALUES);
    const pending = await until(() => h.deliveryOf(event, hook.id), "the delivery");
    const attempt = { webhookId: hook.id, deliveryId: pending.id, token: pending.token };
    await h.deliveries.redeliver(attempt, 0);
    await h.deliveries.redeliver(attempt, 350);
    await h.deliveries.redeliver({ ...attempt, token: "stale" }, 0);
    await h.waitStatus(event, hook.id, "delivered");
    await h.deliveries.redeliver(attempt, 0);
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(receiver.received.length, 1);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test("block_private_networks: a loopback receiver is refused (permanent), never contacted", async () => {
  const receiver = startReceiver(() => new Response("ok"));
  const h = await startHarness({ block_private_networks: true });
  try {
    const hook = await h.addWebhook({ url: receiver.url });
    const event = await h.emit(VALUES);
    const row = await h.waitStatus(event, hook.id, "failed");
    assert.match(row.lastError!, /^Refused: 127\.0\.0\.1 is not a public address/);
    assert.equal((await h.webhooks.flag(hook.id))?.reason, "permanent");
    assert.equal(receiver.received.length, 0);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test("a body over the size limit fails permanently at the event, flagged", async () => {
  const receiver = startReceiver(() => new Response("ok"));
  const h = await startHarness();
  try {
    const hook = await h.addWebhook({
      url: receiver.url,
      mode: "xml_template",
      template: "<n>{{name}}</n>",
    });
    const event = await h.emit({ name: "&".repeat(200 * 1024) });
    const row = await h.waitStatus(event, hook.id, "failed");
    assert.match(row.lastError!, /^The body of \d+ bytes exceeds the \d+-byte limit$/);
    assert.equal((await h.webhooks.flag(hook.id))?.reason, "permanent");
    assert.equal(receiver.received.length, 0);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test("recovery: a pending delivery whose scheduled attempt was lost, and an unannounced event, on start", async () => {
  const receiver = startReceiver(() => new Response("ok"));
  // Not started: what comes due is put back (as while stopping), nothing is sent.
  const first = await startHarness({}, { start: false });
  const hook = await first.addWebhook({ url: receiver.url, signingSecret: SECRET });
  // A delivery that failed once, scheduled (with token "a") a second ago...
  const lostId = "0".repeat(12) + "f".repeat(20);
  const body = new TextEncoder().encode(JSON.stringify({ _recordId: "rec_lost" }));
  const pending = deliveryRow({
    id: lostId,
    webhookId: hook.id,
    formId: "contact",
    attempts: 1,
    round: 1,
    token: "a",
    bodyBytes: body.length,
  });
  const dueAt = Date.now() - 1000;
  assert.ok(await first.deliveries.createDelivery({ state: pending, schedule: { dueAt } }, body));
  // ...then given token "b" with no attempt of its own: its attempt is lost.
  const stored = (await first.deliveries.delivery(lostId))!;
  assert.ok(await first.deliveries.updateDelivery(stored, { state: { ...pending, token: "b" } }));
  // A record event in the outbox that was never announced.
  const orphan = {
    eventId: "orphan-event",
    reason: "insert" as const,
    recordId: "rec_orphan",
    formId: "contact",
    schemaVersion: 1,
    savedAt: "2024-01-01T00:00:00.0000000+00:00",
    values: { name: "Orphan" },
  };
  const w = new KvWrite();
  emitRecordEvent(w, orphan);
  assert.ok(await w.commit(first.kv));
  await first.close(false);

  const second = await startHarness({}, { dir: first.dir });
  try {
    const lost = await until(
      async () => {
        const found = await second.deliveries.delivery(lostId);
        return found?.row.status === "delivered" ? found.row : null;
      },
      "the lost delivery to be re-armed and delivered",
    );
    assert.equal(lost.attempts, 2);
    await second.waitStatus(orphan, hook.id, "delivered");
    const ids = receiver.received.map((r) => JSON.parse(r.text)._recordId);
    assert.deepEqual(ids.sort(), ["rec_lost", "rec_orphan"]);
    for (const r of receiver.received) await assertSigned(r);
  } finally {
    await second.close();
    await receiver.close();
  }
});

test("outbox: more events than memory holds, and scans meanwhile: each delivered once", async () => {
  const receiver = startReceiver(() => new Response("ok"));
  const h = await startHarness({}, { maxWaiting: 5, maxActive: 2 });
  try {
    const hook = await h.addWebhook({ url: receiver.url, signingSecret: SECRET });
    const events = await Promise.all(
      Array.from({ length: 60 }, (_, i) => h.emit({ name: `n${i}` })),
    );
    // Sweeps scan the outbox while announced events are under way.
    await h.engine.sweep(0);
    await h.engine.sweep(0);
    await receiver.waitFor(60);
    for (const event of events) await h.waitStatus(event, hook.id, "delivered");
    await new Promise((r) => setTimeout(r, 300));
    const ids = receiver.received.map((r) => JSON.parse(r.text)._recordId);
    assert.equal(ids.length, 60);
    assert.equal(new Set(ids).size, 60);
    assert.deepEqual(await outboxEvents(h), [], "the outbox is empty");
  } finally {
    await h.close();
    await receiver.close();
  }
});

test("test send: one signed request with sample values, nothing stored", async () => {
  const receiver = startReceiver(() => new Response("got it"));
  const h = await startHarness();
  try {
    const hook = await h.addWebhook({ url: receiver.url, signingSecret: SECRET, method: "PUT" });
    const sent = await h.engine.testSend(hook);
    assert.equal(sent.result.outcome, "delivered");
    assert.equal(sent.result.snippet, "got it");
    const [r] = await receiver.waitFor(1);
    assert.equal(r.method, "PUT");
    assert.equal(r.text, sent.body);
    const body = JSON.parse(r.text);
    assert.match(body._recordId, /^test_[0-9a-f]{16}$/);
    assert.equal(body.name, "Sample text");
    assert.equal(body.age, 42.5);
    assert.deepEqual(body.tags, ["alpha", "beta"]);
    await assertSigned(r);
    const custom = await h.engine.testSend(hook, { name: "Given" });
    assert.equal(JSON.parse(custom.body).name, "Given");
    assert.equal((await h.deliveries.deliveries(hook.id, { limit: 10 })).items.length, 0);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test("blocked: an event whose file URLs cannot be made flags its configurations, then goes through", async () => {
  const receiver = startReceiver(() => new Response(null, { status: 204 }));
  let relayDown = true;
  const h = await startHarness({}, {
    fields: [...FIELDS, { id: "photo", kind: "image" }],
    blobUrl: (ref) => {
      if (relayDown) return Promise.reject(new Error("The relay answered 401: token revoked"));
      return Promise.resolve(`https://relay.example/blob/${ref.hash}?sig=fresh`);
    },
  });
  try {
    const a = await h.addWebhook({ url: receiver.url });
    const b = await h.addWebhook({ url: receiver.url, events: ["update"] });
    const photo = { url: "https://relay.example/put/u1/aa", hash: "a".repeat(64), owned: true };
    const event = await h.emit({ name: "Ada", photo });
    const flag = await until(() => h.webhooks.flag(a.id), "the blocked flag");
    assert.equal(flag.reason, "blocked");
    assert.equal(flag.deliveryId, null);
    assert.equal(flag.eventId, event.eventId);
    assert.match(flag.error!, new RegExp(`Record ${event.recordId} .* waits.*token revoked`));
    assert.equal(await h.webhooks.flag(b.id), null, "b does not fire on inserts");
    assert.equal(await h.deliveryOf(event, a.id), null, "no delivery yet");
    assert.equal(receiver.received.length, 0);
    assert.ok(h.logs.some((line) => line.includes("Webhook event processing failed")));
    const view = await h.webhooks.flags([a.id]);
    assert.equal(view.get(a.id)?.reason, "blocked");

    // The relay is back: the next sweep takes the event from the outbox, and the flag goes.
    relayDown = false;
    await h.engine.sweep(0);
    const delivered = await h.waitStatus(event, a.id, "delivered");
    assert.equal(delivered.attempts, 1);
    assert.equal(
      JSON.parse(receiver.received[0].text).photo,
      `https://relay.example/blob/${"a".repeat(64)}?sig=fresh`,
    );
    await until(
      async () => (await h.webhooks.flag(a.id)) === null ? true : null,
      "the flag cleared",
    );

    // A later failure of another kind is not cleared by events going through.
    relayDown = true;
    await h.emit({ name: "Grace", photo });
    await until(
      async () => (await h.webhooks.flag(a.id))?.reason === "blocked" ? true : null,
      "blocked again",
    );
    const permanent = {
      ...(await h.webhooks.flag(a.id))!,
      reason: "permanent" as const,
      deliveryId: "d1",
    };
    // A delivery of `a` fails permanently meanwhile.
    const failed = deliveryRow({ id: "d1", webhookId: a.id, status: "failed", attempts: 1 });
    assert.ok(
      await h.deliveries.createDelivery({ state: failed, failure: { flag: permanent } }, null),
    );
    relayDown = false;
    await h.engine.sweep(0);
    await until(
      () => Promise.resolve(receiver.received.length === 2 ? true : null),
      "the second event",
    );
    assert.deepEqual(await h.webhooks.flag(a.id), permanent);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test("blocked: the flag outlives a restart and goes once its event goes through after it", async () => {
  const receiver = startReceiver(() => new Response(null, { status: 204 }));
  const fields = [...FIELDS, { id: "photo", kind: "image" as const }];
  const photo = { url: "https://relay.example/put/u1/aa", hash: "b".repeat(64), owned: true };
  const first = await startHarness({}, {
    fields,
    blobUrl: () => Promise.reject(new Error("The relay answered 403")),
  });
  let restarted: Awaited<ReturnType<typeof startHarness>> | null = null;
  try {
    const hook = await first.addWebhook({ url: receiver.url });
    const event = await first.emit({ name: "Ada", photo });
    await until(() => first.webhooks.flag(hook.id), "the blocked flag");
    await first.close(false);
    // The relay works again by the restart: the start's sweep takes the event and the flag goes.
    restarted = await startHarness({}, {
      dir: first.dir,
      fields,
      blobUrl: (ref) => Promise.resolve(`https://relay.example/blob/${ref.hash}`),
    });
    await restarted.waitStatus(event, hook.id, "delivered");
    await until(
      async () => (await restarted!.webhooks.flag(hook.id)) === null ? true : null,
      "the flag cleared after the restart",
    );
  } finally {
    await (restarted ?? first).close();
    await receiver.close();
  }
});
