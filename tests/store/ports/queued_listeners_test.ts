import assert from "node:assert/strict";
import { QueuedListeners } from "../../../src/store/ports/queued_listeners.ts";

Deno.test("queued listeners: each is told; one that throws does not stop the others; removed ones are not", () => {
  const queued = new QueuedListeners();
  const heard: string[] = [];
  queued.add(() => {
    throw new Error("broken listener");
  });
  const stop = queued.add((fp) => heard.push(`a:${fp}`));
  queued.add((fp) => heard.push(`b:${fp}`));
  queued.emit("fp1");
  stop();
  queued.emit("fp2");
  assert.deepEqual(heard, ["a:fp1", "b:fp1", "b:fp2"]);
});

Deno.test("queued listeners: one function added twice is two listeners, removed one by one", () => {
  const queued = new QueuedListeners();
  let calls = 0;
  const listener = () => calls++;
  const first = queued.add(listener);
  queued.add(listener);
  queued.emit("fp");
  first();
  queued.emit("fp");
  assert.equal(calls, 3);
});

Deno.test("queued listeners: announcements of one turn are told once per fingerprint, after it", async () => {
  const queued = new QueuedListeners();
  const heard: string[] = [];
  queued.add((fp) => heard.push(fp));
  // Writers of one batch resume in consecutive microtasks.
  await Promise.all(["a", "b", "a", "a"].map(async (fp) => {
    await Promise.resolve();
    queued.announce(fp);
  }));
  assert.deepEqual(heard, ["a", "b"]);
  queued.announce("a");
  assert.deepEqual(heard, ["a", "b"], "told after the microtasks, not at once");
  await Promise.resolve();
  assert.deepEqual(heard, ["a", "b", "a"]);
});
