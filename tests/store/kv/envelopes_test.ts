/**
 * The Deno KV layout of the envelope port (what the contract cannot see): a large ciphertext's
 * chunk rows and staging marker, and the sweep of what a crash mid-write leaves.
 */
import assert from "node:assert/strict";
import { GroupCommitter } from "../../../src/store/group_commit.ts";
import { keys } from "../../../src/store/keys.ts";
import { KvEnvelopes } from "../../../src/store/kv/envelopes.ts";
import type { SubmissionRow } from "../../../src/store/ports/envelopes.ts";
import { freshKv } from "../contract/_kv.ts";

const head: SubmissionRow = {
  id: "s1",
  formId: "contact",
  fingerprint: "fp",
  createdAt: "2030-01-01T00:00:00.000Z",
  version: 1,
  digest: "d",
  latestDigest: "d",
};

async function count(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  return (await Array.fromAsync(kv.list({ prefix }))).length;
}

Deno.test("kv envelopes: a large ciphertext lies in 60 KiB chunks that its ack deletes", async () => {
  const { kv, close } = await freshKv();
  try {
    const port = new KvEnvelopes(kv, new GroupCommitter(kv));
    const ciphertext = new Uint8Array(2 * 1024 * 1024 + 1).fill(7);
    const env = { formId: "contact", recipientPubkey: "pk", submitterId: null, ciphertext };
    assert.equal(await port.writeVersion(head, null, env), true);
    assert.equal(await count(kv, ["chunks"]), 35, "2 MiB + 1 in 60 KiB chunks");
    assert.equal(await count(kv, keys.stagingAll()), 0, "the commit removed the marker");
    const [item] = (await port.listQueue("fp", 0, 1)).items;
    assert.equal(await port.ack("fp", [item.seq]), 1);
    assert.equal(await count(kv, ["chunks"]), 0, "acking deletes the chunks");
  } finally {
    await close();
  }
});

Deno.test("kv envelopes: the staging sweep removes chunk sets whose commit never came", async () => {
  const { kv, close } = await freshKv();
  try {
    const port = new KvEnvelopes(kv, new GroupCommitter(kv));
    // A crash between writing the chunks and the commit leaves this behind.
    await kv.set(keys.staging("b1"), { chunks: 2, at: Date.now() });
    await kv.set(keys.chunk("b1", 0), new Uint8Array(10));
    await kv.set(keys.chunk("b1", 1), new Uint8Array(10));
    const ciphertext = new Uint8Array(100_000);
    const env = { formId: "contact", recipientPubkey: "pk", submitterId: null, ciphertext };
    await port.writeVersion(head, null, env);
    assert.equal(await port.sweepStaging(), 1);
    assert.equal(await count(kv, keys.stagingAll()), 0);
    assert.equal(await count(kv, keys.chunksOf("b1")), 0);
    const [item] = (await port.listQueue("fp", 0, 1)).items;
    assert.deepEqual(item.ciphertext, ciphertext, "a committed envelope's chunks stay");
  } finally {
    await close();
  }
});
