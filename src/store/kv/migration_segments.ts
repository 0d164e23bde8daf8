/**
 * Migration 4: queued ciphertexts leave their KV rows for the segment files
 * (src/store/kv/segments.ts). A queue row kept its ciphertext inline, or in 60 KiB chunks under a
 * chunk set; now it keeps a reference into a segment. Chunk sets written ahead of a commit that
 * never came (staging) are deleted.
 *
 * @module
 */
import { join } from "node:path";
import type { QueueRow } from "./envelope_rows.ts";
import { deletePartsInSteps, readParts } from "./parts.ts";
import type { Migration } from "./schema.ts";
import { SegmentLog, SEGMENTS_DIR } from "./segments.ts";
import { KvWrite } from "./write.ts";

/** Where versions 0 to 3 kept the chunks of a ciphertext too large for its queue row. */
const chunksOf = (blobId: string) => ["chunks", blobId];

/** A queue row as versions 0 to 3 wrote it. */
interface QueueRowV3 extends Omit<QueueRow, "ref"> {
  bytes: number;
  ciphertext?: Uint8Array;
  blobId?: string;
  chunks?: number;
}

/** Moves every queued ciphertext into segments; removes chunk sets nothing refers to. */
export const queueCiphertextsInSegments: Migration = {
  to: 4,
  description: "queued ciphertexts in segment files",
  async run(kv, dataDir) {
    let segments: SegmentLog | null = null;
    try {
      for await (const entry of kv.list<QueueRowV3 | QueueRow>({ prefix: ["queue"] })) {
        if ("ref" in entry.value) continue;
        const { ciphertext, blobId, chunks, bytes: _, ...rest } = entry.value;
        const bytes = ciphertext ?? await readParts(kv, chunksOf(blobId!));
        if (!bytes) throw new Error(`Queue row ${JSON.stringify(entry.key)} lost its chunks`);
        segments ??= await SegmentLog.open(join(dataDir, SEGMENTS_DIR));
        const ref = segments.append(bytes);
        await segments.flush();
        const row: QueueRow = { ...rest, ref };
        // One process owns the store and migrates before serving: the check cannot fail.
        if (!await new KvWrite().check(entry).set(entry.key, row).commit(kv)) {
          throw new Error(`Migrating ${JSON.stringify(entry.key)} failed`);
        }
        segments.settle(ref);
        if (blobId) await deletePartsInSteps(kv, chunksOf(blobId), chunks ?? 0);
      }
      for await (const entry of kv.list<{ chunks: number }>({ prefix: ["staging"] })) {
        const blobId = String(entry.key[1]);
        await deletePartsInSteps(kv, chunksOf(blobId), entry.value.chunks);
        await kv.delete(entry.key);
      }
    } finally {
      await segments?.close();
    }
  },
};
