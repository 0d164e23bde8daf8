import assert from "node:assert/strict";
import { join } from "node:path";
import { KvEnvelopes } from "../../../../src/store/kv/envelopes.ts";
import { PgEnvelopes } from "../../../../src/store/pg/envelopes.ts";
import { copyEnvelopesFromKv } from "../../../../src/store/pg/from_kv/envelopes.ts";
import type { SubmissionHead } from "../../../../src/store/ports/envelopes.ts";
import { SegmentLog, SEGMENTS_DIR } from "../../../../src/store/kv/segments.ts";
import { freshKv } from "../../contract/_kv.ts";
import { freshPg } from "../../contract/_pg.ts";

/** Hex, as real fingerprints are (KV keeps them as bytes in its keys). */
const FP_A = "ab".repeat(16);
const FP_B = "cd".repeat(16);

function head(id: string, fingerprint: string, version = 1): SubmissionHead {
  return {
    id,
    formId: "contact",
    fingerprint,
    createdAt: "2030-01-02T03:04:05.678Z",
    version,
    digest: `digest-${id}`,
    latestDigest: `digest-${id}-${version}`,
  };
}

function envelope(bytes: number, submitterId: string | null = null) {
  const ciphertext = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i += 65536) {
    ciphertext.set(crypto.getRandomValues(new Uint8Array(Math.min(65536, bytes - i))), i);
  }
  return { formId: "contact", recipientPubkey: "pk", submitterId, ciphertext };
}

Deno.test("copyEnvelopesFromKv: heads and queued envelopes read back the same through the PostgreSQL port; again copies nothing twice", async () => {
  const source = await freshKv();
  const pg = await freshPg();
  const kvPort = new KvEnvelopes(
    source.kv,
    await SegmentLog.open(join(source.dir, SEGMENTS_DIR), { segmentBytes: 4096 }),
  );
  let pgPort: PgEnvelopes | null = null;
  try {
    for (let i = 0; i < 4; i++) {
      assert.ok(await kvPort.writeVersion(head(`a${i}`, FP_A), null, envelope(100 + i)));
    }
    assert.ok(await kvPort.writeVersion(head("a1", FP_A, 2), 1, envelope(5000, "sub-1")));
    assert.ok(await kvPort.writeVersion(head("b0", FP_B), null, envelope(700_000)));
    assert.ok(await kvPort.writeVersion(head("gone", FP_B), null, envelope(10)));
    const gone = (await kvPort.listQueue(FP_B, 0, 10)).items[1];
    assert.equal(await kvPort.ack(FP_B, [gone.seq]), 1);
    const heads = await Promise.all(
      ["a0", "a1", "a2", "a3", "b0", "gone"].map((id) => kvPort.getSubmission(id)),
    );
    const queues = {
      [FP_A]: (await kvPort.listQueue(FP_A, 0, 100)).items,
      [FP_B]: (await kvPort.listQueue(FP_B, 0, 100)).items,
    };
    await kvPort.close();

    const counts = await copyEnvelopesFromKv(source.kv, source.dir, pg.sql);
    assert.deepEqual(counts, { submissions: 6, envelopes: 6 });
    assert.deepEqual(await copyEnvelopesFromKv(source.kv, source.dir, pg.sql), counts, "again");

    pgPort = await PgEnvelopes.open(pg.sql);
    for (const row of heads) assert.deepEqual(await pgPort.getSubmission(row!.id), row);
    for (const [fp, items] of Object.entries(queues)) {
      assert.deepEqual((await pgPort.listQueue(fp, 0, 100)).items, items, fp);
    }
    const [{ n }] = await pg.sql`select count(*)::int as n from relay_queue`;
    assert.equal(n, 6, "no row copied twice");
    assert.ok(await pgPort.writeVersion(head("new", FP_A), null, envelope(10)));
    const after = (await pgPort.listQueue(FP_A, 0, 100)).items;
    assert.equal(after.at(-1)!.submissionId, "new");
    assert.ok(after.at(-1)!.seq > queues[FP_A].at(-1)!.seq, "positions go on after the copy");
  } finally {
    await pgPort?.close();
    await pg.close();
    await source.close();
  }
});
