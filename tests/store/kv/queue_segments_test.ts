import assert from "node:assert/strict";
import { KvEnvelopes } from "../../../src/store/kv/envelopes.ts";
import {
  oldestReferencedSegment,
  sweepQueueSegments,
} from "../../../src/store/kv/queue_segments.ts";
import { decodeQueued, encodeQueued } from "../../../src/store/kv/envelope_rows.ts";
import { keys } from "../../../src/store/kv/keys.ts";
import { SegmentLog } from "../../../src/store/kv/segments.ts";
import { KvWrite } from "../../../src/store/kv/write.ts";

/** A store with a segment log of small segments, and intake's write of one envelope. */
async function setup(segmentBytes: number) {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-queue-segments-" });
  const kv = await Deno.openKv(":memory:");
  const segments = await SegmentLog.open(dir, { segmentBytes });
  let seq = 0;
  const enqueue = async (fp: string, bytes: Uint8Array) => {
    const ref = segments.append(bytes);
    await segments.flush();
    const row = encodeQueued({
      submissionId: crypto.randomUUID().replaceAll("-", ""),
      version: 1,
      formId: "contact",
      recipientPubkey: "k",
      submitterId: null,
      receivedAt: new Date().toISOString(),
      ref,
    });
    await new KvWrite().set(keys.queue(fp, ++seq), row).commit(kv);
    segments.settle(ref);
    return seq;
  };
  const files = async () => (await Array.fromAsync(Deno.readDir(dir))).length;
  const envelopes = new KvEnvelopes(kv, segments);
  const close = async () => {
    await envelopes.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { kv, segments, envelopes, enqueue, files, close };
}

/** A second queue, keyed by its fingerprint's bytes (the first, "a", by a string). */
const B = "b".repeat(64);
const value = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => i ^ seed);

Deno.test("queue segments: the oldest referenced is the smallest among the queues' first rows", async () => {
  const t = await setup(1000);
  try {
    assert.equal(await oldestReferencedSegment(t.kv), Infinity);
    const a1 = await t.enqueue("a", value(900, 1)); // segment 1
    await t.enqueue(B, value(900, 2)); // segment 2
    await t.enqueue("a", value(900, 3)); // segment 3
    assert.equal(await oldestReferencedSegment(t.kv), 1);
    await t.envelopes.ack("a", [a1]);
    assert.equal(await oldestReferencedSegment(t.kv), 2);
  } finally {
    await t.close();
  }
});

Deno.test("queue segments: acked segments are deleted, those still referenced kept", async () => {
  const t = await setup(1000);
  try {
    const seqs = [];
    for (let i = 0; i < 4; i++) seqs.push(await t.enqueue("a", value(900, i))); // segments 1..4
    await t.enqueue(B, value(900, 9)); // segment 5, current
    assert.equal(await t.files(), 5);
    await t.envelopes.ack("a", seqs.slice(0, 2));
    assert.equal(await sweepQueueSegments(t.kv, t.segments), 2);
    assert.equal(await t.files(), 3);
    const { items } = await t.envelopes.listQueue("a", 0, 10);
    assert.deepEqual(items.map((i) => i.ciphertext), [
      value(900, 2),
      value(900, 3),
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("queue segments: a mostly acked old segment is compacted; its live value moves and reads back", async () => {
  const t = await setup(10_000);
  try {
    const seqs = [];
    for (let i = 0; i < 10; i++) seqs.push(await t.enqueue("a", value(1000, i))); // segment 1
    await t.enqueue(B, value(1000, 99)); // segment 2 (segment 1 is full)
    // A vault that never drains "a" keeps its oldest envelope; the others are acked.
    await t.envelopes.ack("a", seqs.slice(1));
    const before = await t.envelopes.listQueue("a", 0, 10);
    assert.equal(await sweepQueueSegments(t.kv, t.segments), 1, "segment 1 compacted away");
    const after = await t.envelopes.listQueue("a", 0, 10);
    assert.deepEqual(
      after.items.map((i) => [i.seq, i.ciphertext]),
      before.items.map((i) => [i.seq, i.ciphertext]),
    );
    const row = decodeQueued((await t.kv.get<Uint8Array>(keys.queue("a", seqs[0]))).value!);
    assert.equal(row.ref.s, 2, "the row points into the current segment now");
  } finally {
    await t.close();
  }
});

Deno.test("queue segments: an old segment still mostly live is left as it is", async () => {
  const t = await setup(10_000);
  try {
    const seqs = [];
    for (let i = 0; i < 10; i++) seqs.push(await t.enqueue("a", value(1000, i))); // segment 1
    await t.enqueue(B, value(1000, 99)); // segment 2
    await t.envelopes.ack("a", seqs.slice(0, 3));
    assert.equal(await sweepQueueSegments(t.kv, t.segments), 0);
    const row = decodeQueued((await t.kv.get<Uint8Array>(keys.queue("a", seqs[5]))).value!);
    assert.equal(row.ref.s, 1);
  } finally {
    await t.close();
  }
});
