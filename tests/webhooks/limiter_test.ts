import assert from "node:assert/strict";
import { KeyedLimiter } from "../../src/webhooks/limiter.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `promise` has settled after the microtasks queued now have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => done = true, () => done = true);
  await sleep(0);
  return done;
}

// The default sanitizers stay on: a wait's timer left armed fails the test.

Deno.test("limiter: waiters are served in order; a bounded wait ends with null", async () => {
  const limiter = new KeyedLimiter();
  const first = await limiter.acquire("k", 1, 1_000);
  assert.ok(first);
  const started = performance.now();
  const timedOut = limiter.acquire("k", 1, 30);
  const second = limiter.acquire("k", 1, 1_000);
  const third = limiter.acquire("k", 1, 1_000);
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
  const a = await limiter.acquire("a", 1, 0);
  const b = await limiter.acquire("b", 1, 0);
  assert.ok(a && b);
  a();
  b();
});

Deno.test("limiter: each key has the limit its acquisitions give", async () => {
  const limiter = new KeyedLimiter();
  const ones = [await limiter.acquire("one", 1, 0)];
  const fours = [];
  for (let i = 0; i < 4; i++) fours.push(await limiter.acquire("four", 4, 0));
  assert.ok(ones[0] && fours.every(Boolean));
  assert.equal(limiter.active("four"), 4);
  assert.equal(await limiter.acquire("one", 1, 10), null, "one is full at 1");
  assert.equal(await limiter.acquire("four", 4, 10), null, "four is full at 4");
  for (const release of [...ones, ...fours]) release!();
  assert.equal(limiter.active("one"), 0);
  assert.equal(limiter.active("four"), 0);
});

Deno.test("limiter: a lowered limit holds new holders back until enough release", async () => {
  const limiter = new KeyedLimiter();
  const held = [];
  for (let i = 0; i < 3; i++) held.push((await limiter.acquire("k", 3, 0))!);
  // Lowered to 1 with 3 in flight: they keep their slots; a new one waits for all 3.
  const next = limiter.acquire("k", 1, 1_000);
  const after = limiter.acquire("k", 1, 1_000);
  assert.equal(limiter.active("k"), 3);
  held[0]();
  held[1]();
  assert.equal(await settled(next), false, "2 still in flight, over the limit of 1");
  assert.equal(limiter.active("k"), 1);
  held[2]();
  const nextRelease = (await next)!;
  assert.equal(limiter.active("k"), 1);
  assert.equal(await settled(after), false, "the limit is 1 now");
  nextRelease();
  (await after)!();
  assert.equal(limiter.active("k"), 0);
});

Deno.test("limiter: a raised limit lets waiters in at once, oldest first", async () => {
  const limiter = new KeyedLimiter();
  const first = (await limiter.acquire("k", 1, 0))!;
  const order: string[] = [];
  const w1 = limiter.acquire("k", 1, 1_000).then((r) => (order.push("w1"), r));
  const w2 = limiter.acquire("k", 1, 1_000).then((r) => (order.push("w2"), r));
  assert.equal(await settled(w1), false);
  // Raised to 4: both waiters get in, then the new one, after them.
  const w3 = limiter.acquire("k", 4, 1_000).then((r) => (order.push("w3"), r));
  const releases = await Promise.all([w1, w2, w3]);
  assert.deepEqual(order, ["w1", "w2", "w3"]);
  assert.ok(releases.every(Boolean));
  assert.equal(limiter.active("k"), 4);
  assert.equal(await limiter.acquire("k", 4, 10), null, "full at 4");
  for (const release of [first, ...releases]) release!();
  assert.equal(limiter.active("k"), 0);
});

Deno.test("limiter: a limit is a positive integer", () => {
  const limiter = new KeyedLimiter();
  for (const limit of [0, -1, 1.5, NaN]) {
    assert.throws(() => limiter.acquire("k", limit, 0), RangeError);
  }
});
