/**
 * The contract of the envelope port (src/store/ports/envelopes.ts), for any implementation.
 */
import assert from "node:assert/strict";
import type { WritePart } from "../../../src/store/ports/write_part.ts";
import { contractTests } from "./_suite.ts";
import type {
  EnvelopePort,
  NewEnvelope,
  SubmissionHead,
} from "../../../src/store/ports/envelopes.ts";

/**
 * Makes a fresh, empty port and closes it; `commit` commits write parts the port made in one
 * atomic write of its backend (as another port of the same store would).
 */
export type MakeEnvelopes = () => Promise<{
  port: EnvelopePort;
  commit(parts: WritePart[]): Promise<void>;
  close(): Promise<void>;
}>;

const FP = "fp-main";

function head(id: string, version = 1, fingerprint = FP): SubmissionHead {
  return {
    id,
    formId: "contact",
    fingerprint,
    createdAt: "2030-01-01T00:00:00.000Z",
    version,
    digest: "d1",
    latestDigest: `d${version}`,
  };
}

function envelope(bytes: number | Uint8Array = 100): NewEnvelope {
  const ciphertext = typeof bytes === "number"
    ? crypto.getRandomValues(new Uint8Array(Math.min(bytes, 65536)))
    : bytes;
  return { formId: "contact", recipientPubkey: "pk", submitterId: null, ciphertext };
}

/** `n` bytes that are not all alike (random bytes are capped at 64 KiB a call). */
function bigBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) {
    out.set(crypto.getRandomValues(new Uint8Array(Math.min(65536, n - i))), i);
  }
  return out;
}

/** Registers the envelope contract's tests for implementation `name`. */
export function envelopesContract(name: string, make: MakeEnvelopes): void {
  const test = contractTests("envelopes", name, make);

  test("a new submission stores its head and queues version 1 with its bytes", async (p) => {
    assert.equal(await p.getSubmission("s1"), null);
    const sent = envelope(300);
    assert.equal(await p.writeVersion(head("s1"), null, sent), true);
    assert.deepEqual(await p.getSubmission("s1"), head("s1"));
    const { items, nextCursor } = await p.listQueue(FP, 0, 10);
    assert.equal(nextCursor, null);
    assert.equal(items.length, 1);
    const [item] = items;
    assert.deepEqual(
      [item.submissionId, item.version, item.formId, item.recipientPubkey, item.submitterId],
      ["s1", 1, "contact", "pk", null],
    );
    assert.deepEqual(item.ciphertext, sent.ciphertext);
    assert.ok(item.seq > 0);
    assert.ok(!Number.isNaN(Date.parse(item.receivedAt)));
    assert.deepEqual((await p.listQueue("fp-other", 0, 10)).items, [], "queues are per recipient");
  });

  test("a write expecting no head fails once one exists, and writes nothing", async (p) => {
    await p.writeVersion(head("s1"), null, envelope());
    assert.equal(await p.writeVersion({ ...head("s1"), digest: "x" }, null, envelope()), false);
    assert.equal((await p.getSubmission("s1"))?.digest, "d1");
    assert.equal((await p.listQueue(FP, 0, 10)).items.length, 1);
  });

  test("amendments apply over the version they read; a stale one fails", async (p) => {
    await p.writeVersion(head("s1"), null, envelope());
    assert.equal(await p.writeVersion(head("s1", 2), 1, envelope()), true);
    assert.equal(await p.writeVersion(head("s1", 3), 1, envelope()), false, "stale");
    assert.equal(await p.writeVersion(head("s2", 2), 1, envelope()), false, "no head");
    assert.equal((await p.getSubmission("s1"))?.version, 2);
    const versions = (await p.listQueue(FP, 0, 10)).items.map((i) => i.version);
    assert.deepEqual(versions, [1, 2]);
  });

  test("concurrent writes of one submission: exactly one applies", async (p) => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () => p.writeVersion(head("s1"), null, envelope())),
    );
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal((await p.listQueue(FP, 0, 10)).items.length, 1);
  });

  test("queue positions grow in commit order, also under concurrent writes", async (p) => {
    for (const id of ["a", "b", "c"]) await p.writeVersion(head(id), null, envelope());
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => p.writeVersion(head(`n${i}`), null, envelope())),
    );
    await p.writeVersion(head("z"), null, envelope());
    const items = (await p.listQueue(FP, 0, 100)).items;
    assert.equal(items.length, 44);
    assert.deepEqual(items.slice(0, 3).map((i) => i.submissionId), ["a", "b", "c"]);
    assert.equal(items.at(-1)?.submissionId, "z");
    const seqs = items.map((i) => i.seq);
    assert.deepEqual([...seqs].sort((x, y) => x - y), seqs);
    assert.equal(new Set(seqs).size, seqs.length);
  });

  test("pages follow the cursor to the end", async (p) => {
    for (let i = 0; i < 7; i++) await p.writeVersion(head(`s${i}`), null, envelope());
    const seen: string[] = [];
    let after = 0;
    for (let page = 0; page < 10; page++) {
      const { items, nextCursor } = await p.listQueue(FP, after, 3);
      seen.push(...items.map((i) => i.submissionId));
      if (nextCursor === null) break;
      assert.equal(nextCursor, items.at(-1)!.seq);
      after = nextCursor;
    }
    assert.deepEqual(seen, ["s0", "s1", "s2", "s3", "s4", "s5", "s6"]);
  });

  test("large ciphertexts read back whole; a page stops past 16 MiB", async (p) => {
    const big = [bigBytes(9 * 1024 * 1024), bigBytes(8 * 1024 * 1024 + 5)];
    assert.equal(await p.writeVersion(head("b0"), null, envelope(big[0])), true);
    assert.equal(await p.writeVersion(head("b1"), null, envelope(big[1])), true);
    assert.equal(await p.writeVersion(head("b2"), null, envelope(100)), true);
    const first = await p.listQueue(FP, 0, 10);
    assert.deepEqual(first.items.map((i) => i.submissionId), ["b0", "b1"]);
    assert.deepEqual(first.items[0].ciphertext, big[0]);
    assert.deepEqual(first.items[1].ciphertext, big[1]);
    assert.notEqual(first.nextCursor, null);
    const rest = await p.listQueue(FP, first.nextCursor!, 10);
    assert.deepEqual(rest.items.map((i) => i.submissionId), ["b2"]);
    assert.equal(rest.nextCursor, null);
    assert.equal(await p.ack(FP, [first.items[0].seq, rest.items[0].seq]), 2);
    await p.sweep();
    const left = (await p.listQueue(FP, 0, 10)).items;
    assert.deepEqual(left.map((i) => i.submissionId), ["b1"]);
    assert.deepEqual(left[0].ciphertext, big[1], "a sweep frees nothing a queued one needs");
    assert.equal(await p.ack(FP, [left[0].seq]), 1);
    await p.sweep();
    assert.equal(await p.writeVersion(head("b3"), null, envelope(big[1])), true);
    assert.deepEqual((await p.listQueue(FP, 0, 10)).items[0].ciphertext, big[1]);
  });

  test("acks remove by position, count what was there, and are idempotent", async (p) => {
    for (let i = 0; i < 4; i++) await p.writeVersion(head(`s${i}`), null, envelope());
    const seqs = (await p.listQueue(FP, 0, 10)).items.map((i) => i.seq);
    assert.equal(await p.ack(FP, [seqs[0], seqs[0], seqs[2], 12345]), 2);
    assert.equal(await p.ack(FP, [seqs[0], seqs[2]]), 0, "again");
    assert.equal(await p.ack("fp-other", [seqs[1]]), 0, "another recipient's position");
    const left = (await p.listQueue(FP, 0, 10)).items.map((i) => i.submissionId);
    assert.deepEqual(left, ["s1", "s3"]);
    const both = await Promise.all([p.ack(FP, [seqs[1], seqs[3]]), p.ack(FP, [seqs[1], seqs[3]])]);
    assert.equal(both[0] + both[1], 2, "two acks at once count each position once");
  });

  test("acks of many positions at once (over one batch) all apply", async (p) => {
    await Promise.all(
      Array.from({ length: 250 }, (_, i) => p.writeVersion(head(`s${i}`), null, envelope(60))),
    );
    const seqs = (await p.listQueue(FP, 0, 1000)).items.map((i) => i.seq);
    assert.equal(seqs.length, 250);
    assert.equal(await p.ack(FP, seqs), 250);
    assert.deepEqual((await p.listQueue(FP, 0, 1000)).items, []);
  });

  test("queue stats: depth up to the cap and the oldest arrival", async (p) => {
    assert.deepEqual(await p.queueStats(FP, 10), { depth: 0, oldestReceivedAt: null });
    for (let i = 0; i < 5; i++) await p.writeVersion(head(`s${i}`), null, envelope());
    const items = (await p.listQueue(FP, 0, 10)).items;
    assert.deepEqual(await p.queueStats(FP, 10), {
      depth: 5,
      oldestReceivedAt: items[0].receivedAt,
    });
    assert.equal((await p.queueStats(FP, 3)).depth, 3);
    await p.ack(FP, [items[0].seq]);
    assert.deepEqual(await p.queueStats(FP, 10), {
      depth: 4,
      oldestReceivedAt: items[1].receivedAt,
    });
  });

  test("leased envelopes are skipped by other holders until acked or the lease ends", async (p) => {
    for (let i = 0; i < 6; i++) await p.writeVersion(head(`s${i}`), null, envelope());
    const a = { holder: "worker-a", ms: 60_000 };
    const b = { holder: "worker-b", ms: 60_000 };
    const ids = (page: { items: { submissionId: string }[] }) =>
      page.items.map((i) => i.submissionId);
    const first = await p.listQueue(FP, 0, 2, a);
    assert.deepEqual(ids(first), ["s0", "s1"]);
    assert.equal(first.nextCursor, first.items[1].seq, "more follow");
    assert.deepEqual(ids(await p.listQueue(FP, 0, 3, b)), ["s2", "s3", "s4"], "a's skipped");
    assert.deepEqual(ids(await p.listQueue(FP, 0, 10, a)), ["s0", "s1", "s5"], "a sees its own");
    assert.deepEqual(ids(await p.listQueue(FP, 0, 10, b)), ["s2", "s3", "s4"]);
    assert.equal(ids(await p.listQueue(FP, 0, 10)).length, 6, "a plain listing sees all");
    assert.deepEqual((await p.listQueue(FP, 0, 10, { holder: "c", ms: 60_000 })).items, []);
    await p.ack(FP, [first.items[0].seq]);
    assert.deepEqual(ids(await p.listQueue(FP, 0, 10, b)), ["s2", "s3", "s4"], "acked: gone");
    const short = await p.listQueue("fp-short", 0, 10, { holder: "x", ms: 1 });
    assert.deepEqual(short.items, []);
    await p.writeVersion(head("t0", 1, "fp-short"), null, envelope());
    assert.deepEqual(ids(await p.listQueue("fp-short", 0, 10, { holder: "x", ms: 30 })), ["t0"]);
    assert.deepEqual((await p.listQueue("fp-short", 0, 10, { holder: "y", ms: 30 })).items, []);
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.deepEqual(
      ids(await p.listQueue("fp-short", 0, 10, { holder: "y", ms: 30 })),
      ["t0"],
      "an ended lease frees the envelope",
    );
  });

  test("an envelope being acked is never handed to another holder", async (p) => {
    for (let i = 0; i < 20; i++) await p.writeVersion(head(`s${i}`), null, envelope());
    const mine = await p.listQueue(FP, 0, 20, { holder: "a", ms: 60_000 });
    const [acked, theirs] = await Promise.all([
      p.ack(FP, mine.items.map((i) => i.seq)),
      p.listQueue(FP, 0, 20, { holder: "b", ms: 60_000 }),
    ]);
    assert.equal(acked, 20);
    assert.deepEqual(theirs.items, [], "leased until gone");
  });

  test("leasing listings at once split the queue without overlap", async (p) => {
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => p.writeVersion(head(`s${i}`), null, envelope())),
    );
    const pages = await Promise.all(
      ["w1", "w2", "w3"].map((holder) => p.listQueue(FP, 0, 10, { holder, ms: 60_000 })),
    );
    const seqs = pages.flatMap((page) => page.items.map((i) => i.seq));
    assert.equal(seqs.length, 30);
    assert.equal(new Set(seqs).size, 30, "no envelope answered to two holders");
  });

  test("queued listeners hear the recipient of each committed write", async (p) => {
    const heard: string[] = [];
    let wake = () => {};
    const stop = p.onQueued((fp) => {
      heard.push(fp);
      wake();
    });
    try {
      const until = async (done: () => boolean) => {
        for (let i = 0; i < 100 && !done(); i++) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, 50);
          });
        }
      };
      await p.writeVersion(head("s1", 1, "fp-heard"), null, envelope());
      await until(() => heard.includes("fp-heard"));
      assert.ok(heard.includes("fp-heard"));
      assert.equal(await p.writeVersion(head("s1", 1, "fp-refused"), null, envelope()), false);
      await p.writeVersion(head("s2", 1, "fp-last"), null, envelope());
      await until(() => heard.includes("fp-last"));
      assert.ok(!heard.includes("fp-refused"), "a refused write is not announced");
    } finally {
      stop();
    }
    const before = heard.length;
    await p.writeVersion(head("s3", 1, "fp-after"), null, envelope());
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(heard.length, before, "a stopped listener hears nothing");
  });

  Deno.test(`envelopes contract (${name}): ack parts commit inside another write, blind`, async () => {
    const { port: p, commit, close } = await make();
    try {
      await p.writeVersion(head("small"), null, envelope(100));
      await p.writeVersion(head("large"), null, envelope(bigBytes(300_000)));
      await p.writeVersion(head("kept"), null, envelope(100));
      const [small, large, kept] = (await p.listQueue(FP, 0, 10)).items;
      const parts = [p.ackPart(FP, small), p.ackPart(FP, large)];
      assert.equal((await p.listQueue(FP, 0, 10)).items.length, 3, "a part alone writes nothing");
      await commit(parts);
      assert.deepEqual((await p.listQueue(FP, 0, 10)).items.map((i) => i.seq), [kept.seq]);
      await commit([p.ackPart(FP, small), p.ackPart(FP, large)]);
      assert.equal(await p.ack(FP, [small.seq, large.seq]), 0, "already acked");
      await p.sweep();
      const after = (await p.listQueue(FP, 0, 10)).items;
      assert.deepEqual(after.map((i) => i.submissionId), ["kept"], "a sweep keeps what is queued");
      assert.deepEqual(await p.queueStats(FP, 10), {
        depth: 1,
        oldestReceivedAt: kept.receivedAt,
      });
    } finally {
      await close();
    }
  });
}
