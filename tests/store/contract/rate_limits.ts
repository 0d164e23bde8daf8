/**
 * The contract of the rate-limit port (src/store/ports/rate_limits.ts), for any
 * implementation, on a clock the test moves.
 */
import assert from "node:assert/strict";
import { contractTests, type MakePort } from "./_suite.ts";
import type { RateLimitPort, RateLimitRule } from "../../../src/store/ports/rate_limits.ts";

/** Makes a fresh port reading the time (epoch ms) from `now`, and closes it. */
export type MakeRateLimits = (now: () => number) => ReturnType<MakePort<RateLimitPort>>;

const T0 = Date.parse("2030-01-01T00:00:00Z");

/** Registers the rate-limit contract's tests for implementation `name`. */
export function rateLimitsContract(name: string, make: MakeRateLimits): void {
  const clock = { ms: T0 };
  const test = contractTests<RateLimitPort>("rate limits", name, () => make(() => clock.ms));
  const run = (title: string, body: (p: RateLimitPort, q: RateLimitPort) => Promise<void>) =>
    test(title, (p, q) => {
      clock.ms = T0;
      return body(p, q);
    });
  const rule: RateLimitRule = { per_minute: 60, burst: 3 };

  run("a burst, then the sustained rate, per family and key", async (p) => {
    for (let i = 0; i < 3; i++) assert.equal(await p.take("f", "a", rule), 0);
    assert.equal(await p.take("f", "a", rule), 1, "empty: one token a second");
    assert.equal(await p.take("f", "b", rule), 0, "another key has its own bucket");
    assert.equal(await p.take("g", "a", rule), 0, "another family has its own bucket");
    clock.ms += 1000;
    assert.equal(await p.take("f", "a", rule), 0);
    assert.equal(await p.take("f", "a", rule), 1);
    clock.ms += 60_000;
    for (let i = 0; i < 3; i++) {
      assert.equal(await p.take("f", "a", rule), 0, "refilled to the burst");
    }
    assert.ok(await p.take("f", "a", rule) > 0);
  });

  run("the wait rounds up to whole seconds; a refused take takes nothing", async (p) => {
    const slow: RateLimitRule = { per_minute: 6, burst: 1 };
    assert.equal(await p.take("f", "a", slow), 0);
    assert.equal(await p.take("f", "a", slow), 10);
    clock.ms += 5000;
    assert.equal(await p.take("f", "a", slow), 5);
    clock.ms += 4500;
    assert.equal(await p.take("f", "a", slow), 1);
    clock.ms += 500;
    assert.equal(await p.take("f", "a", slow), 0, "the refused takes cost nothing");
  });

  run("two processes share one bucket; takes at once never overdraw it", async (p, q) => {
    const wide: RateLimitRule = { per_minute: 1, burst: 10 };
    const waits = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? q : p).take("owner", "10.0.0.1", wide)),
    );
    assert.equal(waits.filter((w) => w === 0).length, 10, "exactly the burst is allowed");
    assert.ok(waits.every((w) => w === 0 || w >= 1));
    assert.ok(await q.take("owner", "10.0.0.1", wide) > 0);
    assert.ok(await p.take("owner", "10.0.0.1", wide) > 0);
    clock.ms += 60_000;
    assert.equal(await q.take("owner", "10.0.0.1", wide), 0, "one token a minute, for both");
    assert.ok(await p.take("owner", "10.0.0.1", wide) > 0);
  });
}
