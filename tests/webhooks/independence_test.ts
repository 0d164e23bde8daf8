import assert from "node:assert/strict";
import { startHarness, startReceiver } from "./_harness.ts";

const SECRET = "independence-test-secret-0123456789";

Deno.test({
  name: "independence: one webhook hangs until its timeout, a sibling answering 500 is " +
    "retried on its own schedule meanwhile",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const TIMEOUT_S = 3;
    const hangs: (() => void)[] = [];
    // Holds every request until the engine gives up on it (then lets the handler finish).
    const hanging = startReceiver(() =>
      new Promise<Response>((resolve) => {
        const timer = setTimeout(() => resolve(new Response("late")), 10_000);
        hangs.push(() => {
          clearTimeout(timer);
          resolve(new Response("late"));
        });
      })
    );
    const failing = startReceiver((n) =>
      new Response(n === 1 ? "busy" : "ok", {
        status: n === 1 ? 500 : 200,
      })
    );
    const h = await startHarness({
      request_timeout_seconds: TIMEOUT_S,
      retry_schedule_seconds: [0, 0.2, 0.4],
    });
    try {
      const slow = await h.addWebhook({ url: hanging.url, signingSecret: SECRET });
      const flaky = await h.addWebhook({ url: failing.url, signingSecret: SECRET });
      const started = performance.now();
      const event = await h.emit({ name: "Ada" });

      // The sibling's 500, its retry 0.2 s later, and its delivery, all while the first
      // webhook's request still hangs.
      const [first, retry] = await failing.waitFor(2, (TIMEOUT_S - 1) * 1000);
      const delivered = await h.waitStatus(event, flaky.id, "delivered", (TIMEOUT_S - 1) * 1000);
      const elapsed = performance.now() - started;
      assert.ok(elapsed < TIMEOUT_S * 1000, `delivered after ${elapsed} ms, before the timeout`);
      assert.ok(retry.at - first.at >= 150, "the retry waited for its schedule");
      assert.equal(delivered.attempts, 2);
      assert.deepEqual(
        (await h.deliveries.attempts(delivered.id)).map((a) => [a.n, a.status, a.outcome]),
        [[1, 500, "transient"], [2, 200, "delivered"]],
      );
      assert.equal(hanging.received.length, 1);
      const page = await h.deliveries.deliveries(slow.id, { limit: 10 });
      assert.deepEqual(page.items, [], "the hanging delivery is not recorded before its attempt");

      // The hanging one times out, and goes on its own schedule from there.
      const pending = await h.waitStatus(event, slow.id, "pending", (TIMEOUT_S + 2) * 1000);
      assert.equal(pending.attempts, 1);
      assert.equal(pending.lastStatus, null);
      assert.match(pending.lastError ?? "", /time/i);
      assert.ok(performance.now() - started >= TIMEOUT_S * 1000 - 50);
    } finally {
      for (const release of hangs) release();
      await h.close();
      await hanging.close();
      await failing.close();
    }
  },
});
