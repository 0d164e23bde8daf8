import assert from "node:assert/strict";
import { deliveryRow } from "./_delivery_row.ts";
import { deliveryWrite } from "../../src/webhooks/scheduler.ts";
import { MAX_LOGGED_ATTEMPTS, WebhookStore } from "../../src/webhooks/store.ts";
import { transition, type TransitionContext } from "../../src/webhooks/transition.ts";
import { KvWrite } from "../../src/store/write.ts";

const CONTEXT: TransitionContext = {
  now: Date.parse("2026-11-23T12:00:00.000Z"),
  settings: { retry_schedule_seconds: [0], jitter_ratio: 0, retry_after_max_seconds: 1 },
  random: () => 0,
  token: () => "t",
};

const ROW = deliveryRow({
  id: "00000000000000000000000000000001",
  webhookId: "0123456789abcdef01234567",
  formId: "f",
  eventId: "e",
  recordId: "r",
  savedAt: "2026-11-23T12:00:00.0000000+00:00",
  status: "delivered",
  bodyBytes: 2,
});

Deno.test("scheduler: each attempt is its own row; the newest 50 are kept", async () => {
  using kv = await Deno.openKv(":memory:");
  const store = new WebhookStore(kv);
  let row = ROW;
  const first = deliveryWrite(row, [], new TextEncoder().encode("{}"));
  const op = new KvWrite();
  first.apply(op);
  assert.ok(await op.commit(kv));
  for (let i = 0; i < MAX_LOGGED_ATTEMPTS + 5; i++) {
    const result = {
      at: new Date(CONTEXT.now + i).toISOString(),
      status: 204,
      durationMs: i,
      outcome: "delivered" as const,
      error: null,
      snippet: null,
      retryAfterSeconds: null,
    };
    const step = transition(row, { type: "attempted", result }, CONTEXT);
    const write = deliveryWrite(step.state, step.effects);
    const next = new KvWrite();
    write.apply(next);
    assert.equal(next.mutations, step.state.attempts > MAX_LOGGED_ATTEMPTS ? 3 : 2);
    assert.ok(await next.commit(kv));
    row = step.state;
  }
  const attempts = await store.attempts(ROW.id);
  assert.equal(attempts.length, MAX_LOGGED_ATTEMPTS);
  assert.deepEqual(attempts.map((a) => a.n), Array.from({ length: 50 }, (_, i) => i + 6));
  assert.equal((await store.delivery(ROW.id))?.value.attempts, MAX_LOGGED_ATTEMPTS + 5);
  assert.deepEqual(await store.body(row), new TextEncoder().encode("{}"));
  // Removing the delivery takes its attempt rows.
  assert.ok(await store.purgeDelivery((await store.delivery(ROW.id))!));
  assert.deepEqual(await store.attempts(ROW.id), []);
});
