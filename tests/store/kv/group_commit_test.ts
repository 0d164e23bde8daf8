import assert from "node:assert/strict";
import { type CommitItem, GroupCommitter } from "../../../src/store/kv/group_commit.ts";
import { WriteTooLargeError } from "../../../src/store/ports/limits.ts";

function item(key: string, value: string): CommitItem {
  return {
    lock: key,
    build: (w, seq) =>
      w.check({ key: ["k", key], versionstamp: null }).set(["k", key], { value, seq }),
  };
}

Deno.test("group commit: many writes, increasing seq in commit order, all durable", async () => {
  const kv = await Deno.openKv(":memory:");
  const committer = new GroupCommitter(kv);
  const results = await Promise.all(
    Array.from({ length: 500 }, (_, i) => committer.commit(item(`id${i}`, `v${i}`))),
  );
  assert.ok(results.every((r) => r.ok));
  const seqs = results.map((r) => r.seq);
  assert.equal(new Set(seqs).size, 500);
  assert.deepEqual([...seqs].sort((a, b) => a - b), seqs, "seq follows submission order");
  let count = 0;
  for await (const _ of kv.list({ prefix: ["k"] })) count++;
  assert.equal(count, 500);
  kv.close();
});

Deno.test("group commit: a failing check fails only its own item", async () => {
  const kv = await Deno.openKv(":memory:");
  await kv.set(["k", "taken"], { value: "old" });
  const committer = new GroupCommitter(kv);
  const results = await Promise.all([
    committer.commit(item("a", "1")),
    committer.commit(item("taken", "new")),
    committer.commit(item("b", "2")),
  ]);
  assert.deepEqual(results.map((r) => r.ok), [true, false, true]);
  assert.equal((await kv.get<{ value: string }>(["k", "taken"])).value?.value, "old");
  assert.equal((await kv.get<{ value: string }>(["k", "b"])).value?.value, "2");
  kv.close();
});

Deno.test("group commit: two writes with one lock never share a batch", async () => {
  const kv = await Deno.openKv(":memory:");
  const committer = new GroupCommitter(kv);
  const results = await Promise.all([
    committer.commit(item("same", "first")),
    committer.commit(item("same", "second")),
  ]);
  assert.deepEqual(results.map((r) => r.ok), [true, false], "the second sees the first");
  assert.equal((await kv.get<{ value: string }>(["k", "same"])).value?.value, "first");
  kv.close();
});

Deno.test("group commit: batches stay within Deno KV's 100-check limit", async () => {
  const kv = await Deno.openKv(":memory:");
  const committer = new GroupCommitter(kv);
  const results = await Promise.all(
    Array.from({ length: 250 }, (_, i) => committer.commit(item(`c${i}`, "x"))),
  );
  assert.ok(results.every((r) => r.ok));
  await committer.idle();
  kv.close();
});

Deno.test("group commit: a commit arriving as a drain ends is not stranded", async () => {
  const kv = await Deno.openKv(":memory:");
  const committer = new GroupCommitter(kv);
  let next = 0;
  // 16 workers each waiting for their previous commit before the next one: the pattern
  // in which a commit can arrive just as the drain loop finds the list empty.
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < 3000) {
      const i = next++;
      const result = await committer.commit(item(`w${i}`, "x"));
      assert.ok(result.ok);
    }
  }));
  let count = 0;
  for await (const _ of kv.list({ prefix: ["k"] })) count++;
  assert.equal(count, 3000);
  kv.close();
});

Deno.test("group commit: with two commits in flight, at most two run and every write lands", async () => {
  const kv = await Deno.openKv(":memory:");
  // Counts the atomic operations under way through the store's own atomic().
  let running = 0;
  let most = 0;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = async () => {
      running++;
      most = Math.max(most, running);
      try {
        await new Promise((r) => setTimeout(r, 2));
        return await commit();
      } finally {
        running--;
      }
    };
    return op;
  };
  const committer = new GroupCommitter(
    kv,
    { maxChecks: 10, maxMutations: 900, maxBytes: 1 << 20 },
    2,
  );
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) => committer.commit(item(`id${i}`, `v${i}`))),
  );
  assert.ok(results.every((r) => r.ok));
  assert.equal(most, 2, "two commits overlapped, never more");
  await committer.idle();
  let count = 0;
  for await (const _ of kv.list({ prefix: ["k"] })) count++;
  assert.equal(count, 200);
  kv.close();
});

/** Counts the atomic operations `kv` commits. */
function countCommits(kv: Deno.Kv): { commits: number } {
  const counter = { commits: 0 };
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = () => {
      counter.commits++;
      return commit();
    };
    return op;
  };
  return counter;
}

Deno.test("group commit: a failing check refuses its item and the rest commit together", async () => {
  const kv = await Deno.openKv(":memory:");
  await kv.set(["k", "taken1"], "old");
  await kv.set(["k", "taken2"], "old");
  const counter = countCommits(kv);
  const committer = new GroupCommitter(kv);
  const names = Array.from(
    { length: 50 },
    (_, i) => i === 7 ? "taken1" : i === 27 ? "taken2" : `n${i}`,
  );
  const results = await Promise.all(names.map((n) => committer.commit(item(n, "new"))));
  assert.deepEqual(
    results.map((r) => r.ok),
    names.map((n) => !n.startsWith("taken")),
  );
  // One refused batch, then one commit of the 48 others: no commit per item.
  assert.equal(counter.commits, 2);
  assert.equal((await kv.get(["k", "taken1"])).value, "old");
  kv.close();
});

Deno.test("group commit: batches are cut by the counted mutations and bytes, in order", async () => {
  const kv = await Deno.openKv(":memory:");
  const counter = countCommits(kv);
  const committer = new GroupCommitter(kv);
  // Each item writes 30 KiB in 3 values: 20 items fit 600 KiB, 300 mutations each batch.
  const results = await Promise.all(Array.from({ length: 60 }, (_, i) =>
    committer.commit({
      lock: `b${i}`,
      build: (w, seq) => {
        for (let j = 0; j < 3; j++) w.set(["b", i, j], new Uint8Array(10 * 1024));
        w.set(["seq", seq], i);
      },
    })));
  assert.ok(results.every((r) => r.ok));
  assert.ok(counter.commits >= 3, `${counter.commits} commits for 60 × 40 KiB`);
  const order: number[] = [];
  for await (const e of kv.list<number>({ prefix: ["seq"] })) order.push(e.value);
  assert.deepEqual(order, order.toSorted((a, b) => a - b), "commit order is queue order");
  kv.close();
});

Deno.test("group commit: an item over Deno KV's limits fails alone with WriteTooLargeError", async () => {
  const kv = await Deno.openKv(":memory:");
  const committer = new GroupCommitter(kv);
  const results = await Promise.allSettled([
    committer.commit(item("small1", "x")),
    committer.commit({ lock: "big", build: (w) => w.set(["big"], new Uint8Array(70 * 1024)) }),
    committer.commit(item("small2", "y")),
  ]);
  assert.equal(results[0].status, "fulfilled");
  assert.equal(results[2].status, "fulfilled");
  assert.equal(results[1].status, "rejected");
  assert.ok((results[1] as PromiseRejectedResult).reason instanceof WriteTooLargeError);
  assert.equal((await kv.get(["k", "small2"])).value !== null, true);
  kv.close();
});

Deno.test("group commit: the next batch is under way before a batch's writers hear of theirs; a failed beforeCommit fails its batch only", async () => {
  const kv = await Deno.openKv(":memory:");
  const gates: PromiseWithResolvers<void>[] = [];
  const committer = new GroupCommitter(kv, undefined, 1, () => {
    gates.push(Promise.withResolvers<void>());
    return gates.at(-1)!.promise;
  });
  const first = committer.commit(item("a", "1"));
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(gates.length, 1, "the first batch waits in its beforeCommit");
  const second = committer.commit(item("b", "2"));
  const third = committer.commit(item("c", "3"));
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(gates.length, 1, "one commit in flight: the others wait");
  gates[0].resolve();
  assert.ok((await first).ok);
  assert.equal(gates.length, 2, "the second batch started before the first writer resumed");
  gates[1].reject(new Error("disk full"));
  await assert.rejects(second, /disk full/);
  await assert.rejects(third, /disk full/, "b and c shared the second batch");
  const fourth = committer.commit(item("d", "4"));
  await new Promise((resolve) => setTimeout(resolve, 0));
  gates[2].resolve();
  const results = [await first, await fourth];
  assert.ok(results[1].ok && results[1].seq > results[0].seq);
  await committer.idle();
  assert.deepEqual(
    (await kv.getMany<{ value: string }[]>([["k", "a"], ["k", "b"], ["k", "d"]])).map((e) =>
      e.value?.value ?? null
    ),
    ["1", null, "4"],
  );
  kv.close();
});
