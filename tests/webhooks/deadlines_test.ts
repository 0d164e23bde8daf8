import assert from "node:assert/strict";
import { Deadlines } from "../../src/webhooks/deadlines.ts";
import { KeyedLimiter } from "../../src/webhooks/limiter.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The default sanitizers stay on: a timer left armed after the last deadline fails the test.

Deno.test("deadlines: each due one fires once, never early; deleted ones never fire", async () => {
  const deadlines = new Deadlines();
  const started = performance.now();
  const fired: [string, number][] = [];
  const mark = (name: string) => () => fired.push([name, performance.now() - started]);
  deadlines.add(60, mark("late"));
  deadlines.add(20, mark("early"));
  const cancelled = deadlines.add(40, mark("cancelled"));
  deadlines.add(40, mark("middle"));
  deadlines.delete(cancelled);
  deadlines.delete(cancelled);
  await sleep(120);
  assert.deepEqual(fired.map(([name]) => name), ["early", "middle", "late"]);
  const due: Record<string, number> = { early: 20, middle: 40, late: 60 };
  for (const [name, at] of fired) assert.ok(at >= due[name], `${name}: fired at ${at} ms`);
});

Deno.test("deadlines: an earlier deadline re-arms the timer; the last deletion stops it", async () => {
  const deadlines = new Deadlines();
  const fired: string[] = [];
  const long = deadlines.add(10_000, () => fired.push("long"));
  deadlines.add(10, () => fired.push("short"));
  await sleep(50);
  assert.deepEqual(fired, ["short"]);
  deadlines.delete(long);
  // Nothing is armed any more: the sanitizer would report a 10 s timer.
});

Deno.test("deadlines: a deadline set while others expire is kept", async () => {
  const deadlines = new Deadlines();
  const fired: string[] = [];
  deadlines.add(10, () => {
    fired.push("first");
    deadlines.add(10, () => fired.push("chained"));
  });
  await sleep(80);
  assert.deepEqual(fired, ["first", "chained"]);
});

Deno.test("limiter: waiters are served in order; a bounded wait ends with null", async () => {
  const limiter = new KeyedLimiter(1);
  const first = await limiter.acquire("k", 1_000);
  assert.ok(first);
  const started = performance.now();
  const timedOut = limiter.acquire("k", 30);
  const second = limiter.acquire("k", 1_000);
  const third = limiter.acquire("k", 1_000);
  assert.equal(await timedOut, null);
  assert.ok(performance.now() - started >= 30);
  assert.equal(limiter.active("k"), 1);
  first();
  first(); // A second release of one slot does nothing.
  const release = (await second)!;
  assert.equal(limiter.active("k"), 1);
  release();
  (await third)!();
  assert.equal(limiter.active("k"), 0);
  // Other keys have their own slots.
  const a = await limiter.acquire("a", 0);
  const b = await limiter.acquire("b", 0);
  assert.ok(a && b);
  a();
  b();
});
