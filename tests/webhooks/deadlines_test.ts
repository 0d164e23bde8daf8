import assert from "node:assert/strict";
import { Deadlines } from "../../src/webhooks/deadlines.ts";

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
