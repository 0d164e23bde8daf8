import assert from "node:assert/strict";
import { Batcher } from "../../../src/store/pg/batcher.ts";

Deno.test("batcher: items queued while a batch runs go together in the next", async () => {
  const sizes: number[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  const batcher = new Batcher(async (items: number[]) => {
    sizes.push(items.length);
    if (sizes.length === 1) await gate;
    return items.map((n) => n * 2);
  }, { maxItems: 100 });
  const first = batcher.submit(1);
  const rest = [2, 3, 4, 5].map((n) => batcher.submit(n));
  release();
  assert.deepEqual(await Promise.all([first, ...rest]), [2, 4, 6, 8, 10]);
  assert.deepEqual(sizes, [1, 4]);
  await batcher.idle();
});

Deno.test("batcher: batches hold at most maxItems and run at most inFlight at once", async () => {
  let running = 0;
  let most = 0;
  const sizes: number[] = [];
  const batcher = new Batcher(async (items: number[]) => {
    running++;
    most = Math.max(most, running);
    sizes.push(items.length);
    await new Promise((resolve) => setTimeout(resolve, 5));
    running--;
    return items;
  }, { maxItems: 3, inFlight: 2 });
  const out = await Promise.all(Array.from({ length: 10 }, (_, i) => batcher.submit(i)));
  assert.deepEqual(out, Array.from({ length: 10 }, (_, i) => i));
  assert.ok(sizes.every((n) => n <= 3));
  assert.equal(most, 2);
});

Deno.test("batcher: a failed flush fails its batch only; idle waits for everything", async () => {
  const batcher = new Batcher(async (items: string[]) => {
    await Promise.resolve();
    if (items.includes("bad")) throw new Error("rolled back");
    return items.map((s) => s.toUpperCase());
  }, { maxItems: 1 });
  const bad = batcher.submit("bad");
  const good = batcher.submit("good");
  await assert.rejects(bad, /rolled back/);
  assert.equal(await good, "GOOD");
  await batcher.idle();
});

Deno.test("batcher: a flush answering the wrong number of results rejects its items", async () => {
  const batcher = new Batcher((_: number[]) => Promise.resolve([]), { maxItems: 10 });
  await assert.rejects(batcher.submit(1), /answered 0 results/);
});
