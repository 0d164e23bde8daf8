/**
 * The Deno KV layout of the envelope port (what the contract cannot see): small queue rows in
 * the store, ciphertexts in the segment files, and the sweep of what a crash mid-write leaves.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { keys } from "../../../src/store/kv/keys.ts";
import { decodeQueued } from "../../../src/store/kv/envelope_rows.ts";
import { KV_FILE } from "../../../src/store/kv/file.ts";
import { KvEnvelopes } from "../../../src/store/kv/envelopes.ts";
import type { SubmissionHead } from "../../../src/store/ports/envelopes.ts";
import { SegmentLog, SEGMENTS_DIR } from "../../../src/store/kv/segments.ts";
import { freshKv } from "../contract/_kv.ts";

const head: SubmissionHead = {
  id: "s1",
  formId: "contact",
  fingerprint: "fp",
  createdAt: "2030-01-01T00:00:00.000Z",
  version: 1,
  digest: "d",
  latestDigest: "d",
};

const envelope = (ciphertext: Uint8Array) => ({
  formId: "contact",
  recipientPubkey: "pk",
  submitterId: null,
  ciphertext,
});

async function segmentFiles(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(join(dir, SEGMENTS_DIR)))).map((e) => e.name).sort();
}

Deno.test("kv envelopes: a queue row points into the segment files, which hold the bytes", async () => {
  const { kv, dir, close } = await freshKv();
  const port = new KvEnvelopes(kv, await SegmentLog.open(join(dir, SEGMENTS_DIR)));
  try {
    const ciphertext = new Uint8Array(2 * 1024 * 1024 + 1).fill(7);
    assert.equal(await port.writeVersion(head, null, envelope(ciphertext)), true);
    const [item] = (await port.listQueue("fp", 0, 1)).items;
    const stored = (await kv.get<Uint8Array>(keys.queue("fp", item.seq))).value!;
    const row = decodeQueued(stored);
    assert.deepEqual(row.ref, { s: 1, o: 0, n: ciphertext.length });
    assert.ok(stored.length < 64, `the row holds no bytes of the envelope (${stored.length} B)`);
    assert.equal((await Deno.stat(join(dir, SEGMENTS_DIR, "000000000001.seg"))).size, row.ref.n);
    const storeBytes = (await Deno.stat(join(dir, KV_FILE))).size +
      (await Deno.stat(join(dir, `${KV_FILE}-wal`))).size;
    assert.ok(storeBytes < 1024 * 1024, `the store holds rows only (${storeBytes} B)`);
  } finally {
    await port.close();
    await close();
  }
});

Deno.test("kv envelopes: bytes a crash left before their rows go with their segment", async () => {
  const { kv, dir, close } = await freshKv();
  // A process appended and flushed, then died before the commit of the rows.
  const crashed = await SegmentLog.open(join(dir, SEGMENTS_DIR));
  crashed.append(new Uint8Array(5000));
  await crashed.close();
  const port = new KvEnvelopes(kv, await SegmentLog.open(join(dir, SEGMENTS_DIR)));
  try {
    assert.equal(await port.writeVersion(head, null, envelope(new Uint8Array(100).fill(1))), true);
    assert.deepEqual(await segmentFiles(dir), ["000000000001.seg", "000000000002.seg"]);
    assert.equal(await port.sweep(), 1);
    assert.deepEqual(await segmentFiles(dir), ["000000000002.seg"]);
    const [item] = (await port.listQueue("fp", 0, 1)).items;
    assert.deepEqual(item.ciphertext, new Uint8Array(100).fill(1), "the committed one stays");
  } finally {
    await port.close();
    await close();
  }
});

Deno.test("kv envelopes: the queue's recipient key is stored once; a row keeps only another one", async () => {
  const { kv, dir, close } = await freshKv();
  const open = async () => new KvEnvelopes(kv, await SegmentLog.open(join(dir, SEGMENTS_DIR)));
  let port = await open();
  try {
    const one = new Uint8Array(60).fill(1);
    assert.equal(await port.writeVersion(head, null, envelope(one)), true);
    // The same key written otherwise (a sender's encoding), kept as sent.
    const other = { ...envelope(one), recipientPubkey: "pk=" };
    assert.equal(await port.writeVersion({ ...head, id: "s2" }, null, other), true);
    assert.equal((await kv.get(keys.queueKey("fp"))).value, "pk");
    const rows = await Array.fromAsync(kv.list<Uint8Array>({ prefix: keys.queueOf("fp") }));
    assert.deepEqual(rows.map((r) => decodeQueued(r.value).recipientPubkey), [null, "pk="]);
    await port.close();
    port = await open(); // nothing remembered: the key is read from the store
    const { items } = await port.listQueue("fp", 0, 10);
    assert.deepEqual(items.map((i) => [i.submissionId, i.recipientPubkey]), [
      ["s1", "pk"],
      ["s2", "pk="],
    ]);
  } finally {
    await port.close();
    await close();
  }
});
