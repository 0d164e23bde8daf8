import { join } from "node:path";
import { KV_FILE } from "../../src/store/kv/file.ts";
import { KvEnvelopes } from "../../src/store/kv/envelopes.ts";
import { SegmentLog, SEGMENTS_DIR } from "../../src/store/kv/segments.ts";
import { KvWrite } from "../../src/store/kv/write.ts";
import { addKvPart } from "../../src/store/kv/write_part.ts";
import type { WritePart } from "../../src/store/ports/write_part.ts";
import { envelopesContract } from "./contract/envelopes.ts";
import { freshKv } from "./contract/_kv.ts";

/** A fresh KV envelope port (small segments when `segmentBytes`, so several are in play). */
function kvEnvelopes(options: { counted: boolean; segmentBytes?: number }) {
  return async () => {
    const { kv, dir, close } = await freshKv();
    const segments = await SegmentLog.open(join(dir, SEGMENTS_DIR), options);
    const storePath = options.counted ? join(dir, KV_FILE) : undefined;
    const port = new KvEnvelopes(kv, segments, { storePath });
    return {
      port,
      /** Commits `parts` in one write, as the vault's record commit does. */
      commit: async (parts: WritePart[]) => {
        const w = new KvWrite();
        for (const part of parts) addKvPart(w, part);
        if (!await w.commit(kv)) throw new Error("The parts' write was refused");
      },
      close: async () => {
        await port.close();
        await close();
      },
    };
  };
}

envelopesContract("deno kv", kvEnvelopes({ counted: true }));
envelopesContract(
  "deno kv, small segments, depth by listing",
  kvEnvelopes({
    counted: false,
    segmentBytes: 4096,
  }),
);
