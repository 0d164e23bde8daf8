/**
 * The envelope port's intake write (`writeVersion`, 1 KiB ciphertexts, `--inFlight` writes at
 * once) on PostgreSQL with group commit, beside two baselines in the same run: PostgreSQL
 * with one transaction per write (`maxBatch: 1`, what group commit saves) and the Deno KV
 * port (segment files + KV rows, the single-process default). Then leasing reads + acks, as
 * two vault workers drain a queue, on both backends.
 *
 *   deno run -A bench/pg_envelopes.ts [--seconds 5] [--inFlight 64]
 *
 * Needs the test PostgreSQL cluster (started on first use; SERVICES_DIR as for the tests).
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { KvEnvelopes } from "../src/store/kv/envelopes.ts";
import { PgEnvelopes } from "../src/store/pg/envelopes.ts";
import type { EnvelopePort } from "../src/store/ports/envelopes.ts";
import { SegmentLog, SEGMENTS_DIR } from "../src/store/kv/segments.ts";
import { freshKv } from "../tests/store/contract/_kv.ts";
import { freshPg } from "../tests/store/contract/_pg.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "5" },
    inFlight: { type: "string", default: "64" },
  },
});
const SECONDS = Number(args.values.seconds);
const IN_FLIGHT = Number(args.values.inFlight);
const FP = "fp-bench";

/** Writes for SECONDS with IN_FLIGHT at once; answers writes per second. */
async function intake(port: EnvelopePort): Promise<number> {
  const ciphertext = crypto.getRandomValues(new Uint8Array(1024));
  const end = performance.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async (_, w) => {
    for (let i = 0; performance.now() < end; i++) {
      const id = `${w}-${i}-${crypto.randomUUID()}`;
      const head = {
        id,
        formId: "f",
        fingerprint: FP,
        createdAt: new Date().toISOString(),
        version: 1,
        digest: id,
        latestDigest: id,
      };
      const ok = await port.writeVersion(head, null, {
        formId: "f",
        recipientPubkey: "pk",
        submitterId: null,
        ciphertext,
      });
      if (!ok) throw new Error("A fresh id was refused");
      done++;
    }
  }));
  return done / SECONDS;
}

/** Two workers leasing pages of 100 and acking them until the queue is empty; answers envelopes/s. */
async function drain(port: EnvelopePort): Promise<number> {
  const started = performance.now();
  const counts = await Promise.all(["w1", "w2"].map(async (holder) => {
    let n = 0;
    for (let pages = 0; pages < 100_000; pages++) {
      const page = await port.listQueue(FP, 0, 100, { holder, ms: 60_000 });
      if (page.items.length === 0) break;
      n += await port.ack(FP, page.items.map((i) => i.seq));
    }
    return n;
  }));
  return (counts[0] + counts[1]) / ((performance.now() - started) / 1000);
}

const rows: [string, number, number][] = [];
async function run(
  name: string,
  open: () => Promise<{ port: EnvelopePort; close(): Promise<void> }>,
) {
  const { port, close } = await open();
  try {
    rows.push([name, await intake(port), await drain(port)]);
  } finally {
    await close();
  }
}

const pgOpen = (maxBatch?: number) => async () => {
  const pg = await freshPg();
  const port = await PgEnvelopes.open(pg.sql, { maxBatch });
  return { port, close: async () => (await port.close(), await pg.close()) };
};
await run("postgres, group commit", pgOpen());
await run("postgres, one transaction per write (baseline)", pgOpen(1));
await run("deno kv + segment files (baseline)", async () => {
  const kv = await freshKv();
  const port = new KvEnvelopes(kv.kv, await SegmentLog.open(join(kv.dir, SEGMENTS_DIR)));
  return { port, close: async () => (await port.close(), await kv.close()) };
});

const load = Deno.loadavg().map((l) => l.toFixed(1)).join(" ");
console.log(`writeVersion, 1 KiB, ${IN_FLIGHT} in flight, ${SECONDS} s; load ${load}`);
console.log("| port | writes/s | leased drain by 2 workers, envelopes/s |");
console.log("| --- | ---: | ---: |");
for (const [name, writes, drained] of rows) {
  console.log(`| ${name} | ${Math.round(writes)} | ${Math.round(drained)} |`);
}
