/**
 * bench/disk: disk per 1 KiB envelope in the store's layout before and after the compact
 * envelope rows (src/store/kv/envelope_rows.ts), measured in one run. Each round writes `--count` envelopes (random
 * UUIDv4 ids, 1 KiB ciphertexts, `--writers` at once so the group commit forms batches as 64
 * connections do) into two fresh data dirs through the same `GroupCommitter` and `SegmentLog`:
 *
 * - before: the rows as V8-serialized objects under text keys (`submissions/{id}` with its
 *   id, hex digests and field names; `queue/{fingerprint}/{seq}` with the recipient key), as
 *   the store wrote them before the compact encoding (written here by the bench);
 * - after: the envelope port as it is (`KvEnvelopes.writeVersion`).
 *
 * Printed per layout: the store file, its WAL and the segment files while the store is open (as
 * a running server has them), per envelope and as a multiple of the ciphertext bytes.
 *
 * Usage: deno run -A bench/disk.ts [--count 100000] [--writers 64] [--rounds 2]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { GroupCommitter } from "../src/store/kv/group_commit.ts";
import { KV_FILE, openStore } from "../src/store/kv/file.ts";
import { KvEnvelopes } from "../src/store/kv/envelopes.ts";
import type { SubmissionHead } from "../src/store/ports/envelopes.ts";
import { SegmentLog, SEGMENTS_DIR } from "../src/store/kv/segments.ts";
import { fmt } from "./_wrk.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    count: { type: "string", default: "100000" },
    writers: { type: "string", default: "64" },
    rounds: { type: "string", default: "2" },
  },
});
const count = Number(values.count);
const writers = Number(values.writers);
const rounds = Number(values.rounds);
const CIPHERTEXT = 1024;

const loadavg = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
const fingerprint = crypto.getRandomValues(new Uint8Array(32)).toHex();
const recipientPubkey = crypto.getRandomValues(new Uint8Array(32)).toBase64();
const ciphertext = crypto.getRandomValues(new Uint8Array(CIPHERTEXT));

/** A new head as intake makes it: random id, SHA-256 digests in hex. */
function newHead(): SubmissionHead {
  const digest = crypto.getRandomValues(new Uint8Array(32)).toHex();
  return {
    id: crypto.randomUUID().replaceAll("-", ""),
    formId: "bench",
    fingerprint,
    createdAt: new Date().toISOString(),
    version: 1,
    digest,
    latestDigest: digest,
  };
}

type Write = () => Promise<unknown>;

/** The object rows' write: the same commit, its rows as objects under text keys. */
function objectRows(kv: Deno.Kv, segments: SegmentLog): { write: Write; close(): Promise<void> } {
  const committer = new GroupCommitter(kv, undefined, 1, () => segments.flush());
  const write = () => {
    const head = newHead();
    const ref = segments.append(ciphertext);
    return committer.commit({
      lock: head.id,
      build: (w, seq) => {
        const key = ["submissions", head.id];
        w.check({ key, versionstamp: null }).set(key, head).set(["queue", fingerprint, seq], {
          submissionId: head.id,
          version: 1,
          formId: head.formId,
          recipientPubkey,
          submitterId: null,
          receivedAt: head.createdAt,
          ref,
        });
      },
    }).finally(() => segments.settle(ref));
  };
  return { write, close: async () => (await committer.idle(), await segments.close()) };
}

/** Bytes of the files directly in `dir` whose names start with `prefix`. */
function bytesOf(dir: string, prefix = ""): number {
  let total = 0;
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isFile && entry.name.startsWith(prefix)) {
      total += Deno.statSync(join(dir, entry.name)).size;
    }
  }
  return total;
}

interface Figures {
  store: number;
  wal: number;
  segments: number;
  seconds: number;
}

async function measure(layout: "before" | "after"): Promise<Figures> {
  const dir = await Deno.makeTempDir({ prefix: `sealpost-disk-${layout}-` });
  try {
    const kv = await openStore(dir);
    const segments = await SegmentLog.open(join(dir, SEGMENTS_DIR));
    let write: Write;
    let close: () => Promise<void>;
    if (layout === "before") {
      ({ write, close } = objectRows(kv, segments));
    } else {
      const port = new KvEnvelopes(kv, segments, { storePath: join(dir, KV_FILE) });
      const envelope = { formId: "bench", recipientPubkey, submitterId: null, ciphertext };
      write = () => port.writeVersion(newHead(), null, envelope);
      close = () => port.close();
    }
    const t0 = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: writers }, async () => {
      while (next < count) {
        next++;
        await write();
      }
    }));
    const seconds = (performance.now() - t0) / 1000;
    const figures: Figures = {
      store: Deno.statSync(join(dir, KV_FILE)).size,
      wal: bytesOf(dir, `${KV_FILE}-`),
      segments: bytesOf(join(dir, SEGMENTS_DIR)),
      seconds,
    };
    await close();
    kv.close();
    return figures;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

console.log(
  `bench/disk: ${count} envelopes of ${CIPHERTEXT} B per layout and round, ${writers} writers, ` +
    `${rounds} rounds; load average at start ${loadavg()}\n`,
);
console.log(
  "| round | layout | store B/env | WAL+shm B/env | segments B/env | total B/env | × ciphertext |",
);
console.log("|---|---|---:|---:|---:|---:|---:|");
for (let round = 1; round <= rounds; round++) {
  for (const layout of ["before", "after"] as const) {
    const f = await measure(layout);
    const total = f.store + f.wal + f.segments;
    console.log(
      `| ${round} | ${layout === "before" ? "before (object rows)" : "after (compact rows)"} | ` +
        `${fmt(f.store / count, 0)} | ${fmt(f.wal / count, 0)} | ${fmt(f.segments / count, 0)} | ` +
        `${fmt(total / count, 0)} | **${fmt(total / count / CIPHERTEXT, 2)}x** |`,
    );
  }
}
console.log(`\nTarget <= 1.6x. Load average at end: ${loadavg()}`);
