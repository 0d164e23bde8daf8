import assert from "node:assert/strict";
import { Deadlines, TimeoutSignals } from "../../src/webhooks/deadlines.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  assert.equal(deadlines.size, 1);
  deadlines.delete(long);
  assert.equal(deadlines.size, 0);
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

Deno.test("timeout signals: requests of one window share a signal that aborts after the timeout", async () => {
  const timeouts = new TimeoutSignals(20);
  const started = performance.now();
  const first = timeouts.take(50);
  const second = timeouts.take(50);
  assert.equal(first.signal, second.signal);
  const other = timeouts.take(80);
  assert.notEqual(other.signal, first.signal);
  timeouts.give(other);
  assert.equal(other.signal.aborted, false);
  const aborted = new Promise<number>((resolve) =>
    first.signal.addEventListener("abort", () => resolve(performance.now() - started))
  );
  timeouts.give(first); // One lease is still out: the window stays armed.
  // The timer does not keep the process alive (a request's fetch does): this wait does.
  const alive = setTimeout(() => {}, 1_000);
  const at = await aborted;
  clearTimeout(alive);
  assert.ok(at >= 50 && at < 200, `aborted at ${at} ms`);
  assert.equal((second.signal.reason as DOMException).name, "TimeoutError");
  timeouts.give(second); // After the abort: nothing left to do, nothing thrown.
});

Deno.test("timeout signals: a window stays while open; once closed, the last lease back disarms it", async () => {
  const timeouts = new TimeoutSignals(20);
  const early = timeouts.take(10_000);
  timeouts.give(early); // Still open: kept for the next request.
  assert.equal(timeouts.size, 1);
  assert.equal(timeouts.take(10_000), early);
  await sleep(40);
  const late = timeouts.take(10_000); // The first window has closed: a new one.
  assert.notEqual(late.signal, early.signal);
  assert.equal(timeouts.size, 2);
  timeouts.give(early); // Closed, and its last lease is back: dropped.
  assert.equal(timeouts.size, 1);
  await sleep(40);
  timeouts.give(late);
  assert.equal(timeouts.size, 0);
  assert.equal(early.signal.aborted || late.signal.aborted, false);
});

Deno.test("timeout signals: the window is a tenth of a short timeout", async () => {
  const timeouts = new TimeoutSignals(100);
  const started = performance.now();
  const lease = timeouts.take(30);
  const alive = setTimeout(() => {}, 1_000);
  await new Promise((resolve) => lease.signal.addEventListener("abort", resolve));
  clearTimeout(alive);
  const at = performance.now() - started;
  assert.ok(at >= 30 && at < 100, `aborted at ${at} ms`);
  timeouts.give(lease);
});

Deno.test("deadlines: a late timer fires the ones due meanwhile in the order they were due", async () => {
  const deadlines = new Deadlines();
  const fired: string[] = [];
  deadlines.add(30, () => fired.push("second"));
  deadlines.add(10, () => fired.push("first"));
  // Block the event loop past both: the timer fires late, with both due at once.
  const until = performance.now() + 60;
  while (performance.now() < until) { /* busy */ }
  await sleep(20);
  assert.deepEqual(fired, ["first", "second"]);
});
