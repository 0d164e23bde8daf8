/**
 * bench/ingest_flat: whether ingest's cost stays flat as the store grows. Two role-all stores
 * in one run, one already holding `--small` records (10,000) and one `--large` (1,000,000);
 * then, in alternating rounds, each ingests `--count` fresh envelopes (sealed and queued
 * through intake, then pulled, opened, validated, saved and acked by the vault). Printed:
 * records/s and the thread CPU per record of each, and the large/small ratios (target: within
 * 10%).
 *
 * The stores are filled fast, by raw writes of the real layout (no sealing, no opening): per
 * record the relay's submission head (its queue row acked) and what the vault's records port
 * writes for a new submission's record (`addRecordWrite`: head with its values, index by time,
 * counts), `FILL_BATCH` records per atomic write, without the record event each write emits
 * (the outbox row, gone once consumed).
 *
 * Usage: deno run -A bench/ingest_flat.ts [--count 10000] [--small 10000] [--large 1000000]
 *   [--rounds 3]
 */
import { parseArgs } from "node:util";
import { keys } from "../src/store/kv/keys.ts";
import { encodeHead } from "../src/store/kv/envelope_rows.ts";
import { addRecordWrite } from "../src/store/kv/record_writes.ts";
import { KvWrite } from "../src/store/kv/write.ts";
import { benchValues, openIngestBench } from "./_ingest.ts";
import { cpuPerItem, threadCpu } from "./cpu.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    count: { type: "string", default: "10000" },
    small: { type: "string", default: "10000" },
    large: { type: "string", default: "1000000" },
    rounds: { type: "string", default: "3" },
  },
});
const count = Number(values.count);
const rounds = Number(values.rounds);
const FILL_BATCH = 150;

/** A write that leaves out the record events' outbox rows (consumed long ago in a full store). */
class WithoutEvents extends KvWrite {
  override set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): this {
    return key[0] === keys.recordEventsAll()[0] ? this : super.set(key, value, options);
  }
}

const loadavg = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
type Bench = Awaited<ReturnType<typeof openIngestBench>>;

/** Writes `records` saved submissions (relay head and vault record) into `bench`'s store. */
async function fill(bench: Bench, records: number) {
  const { kv, db, form } = bench;
  for (let done = 0; done < records; done += FILL_BATCH) {
    const w = new WithoutEvents();
    for (let i = done; i < Math.min(records, done + FILL_BATCH); i++) {
      const id = crypto.randomUUID().replaceAll("-", "");
      const digest = crypto.getRandomValues(new Uint8Array(32)).toHex();
      w.set(
        keys.submission(id),
        encodeHead({
          id,
          formId: form.formId,
          fingerprint: db.fingerprint,
          createdAt: new Date().toISOString(),
          version: 1,
          digest,
          latestDigest: digest,
        }),
      );
      const recordValues = benchValues(i);
      const bytes = new TextEncoder().encode(JSON.stringify(recordValues)).length;
      const write = {
        formId: form.formId,
        recordId: id,
        schemaVersion: form.schemaVersion,
        values: recordValues,
        submissionId: id,
        appliedVersion: 1,
      };
      addRecordWrite(w, null, write, bytes);
    }
    if (!await w.commit(kv)) throw new Error("fill: a write failed");
  }
}

/** Queues `count` envelopes into `bench`, drains them; records/s and CPU per record. */
async function ingest(bench: Bench) {
  await bench.queue(count);
  const cpu0 = threadCpu();
  const t0 = performance.now();
  const result = await bench.vault.ingest.drain();
  const seconds = (performance.now() - t0) / 1000;
  if (result.records !== count) {
    throw new Error(`Expected ${count} records: ${JSON.stringify(result)}`);
  }
  return { rate: count / seconds, cpu: cpuPerItem(cpu0, threadCpu(), count) };
}

const sizes = { small: Number(values.small), large: Number(values.large) };
console.log(
  `bench/ingest_flat: ${count} envelopes per ingest, stores of ${sizes.small} and ${sizes.large} ` +
    `records, ${rounds} alternating rounds; load average at start ${loadavg()}`,
);
const benches = { small: await openIngestBench(), large: await openIngestBench() };
try {
  for (const name of ["small", "large"] as const) {
    const t0 = performance.now();
    await fill(benches[name], sizes[name]);
    const bytes = Deno.statSync(`${benches[name].dir}/sealpost.kv`).size;
    console.log(
      `filled ${sizes[name]} records in ${((performance.now() - t0) / 1000).toFixed(0)} s ` +
        `(store ${(bytes / 2 ** 20).toFixed(0)} MiB); load ${loadavg()}`,
    );
  }
  type Run = { rate: number; cpu: string };
  const runs: Record<"small" | "large", Run[]> = { small: [], large: [] };
  for (let round = 1; round <= rounds; round++) {
    for (const name of ["small", "large"] as const) runs[name].push(await ingest(benches[name]));
    const [s, l] = [runs.small.at(-1)!, runs.large.at(-1)!];
    console.log(
      `  round ${round}: ${sizes.small} stored ${s.rate.toFixed(0)} records/s (CPU µs/record ` +
        `${s.cpu}); ${sizes.large} stored ${l.rate.toFixed(0)} records/s (${l.cpu}); ` +
        `load ${loadavg()}`,
    );
  }
  const cpuTotal = (cpu: string) => Number(/total (\d+)/.exec(cpu)?.[1] ?? NaN);
  const rate = (name: "small" | "large") => median(runs[name].map((r) => r.rate));
  const cpu = (name: "small" | "large") => median(runs[name].map((r) => cpuTotal(r.cpu)));
  console.log(
    `medians: ${sizes.small} stored ${rate("small").toFixed(0)} records/s, ` +
      `${cpu("small")} µs CPU/record; ${sizes.large} stored ${rate("large").toFixed(0)} ` +
      `records/s, ${cpu("large")} µs CPU/record; throughput ${
        (rate("large") / rate("small")).toFixed(2)
      }x, CPU per record ${(cpu("large") / cpu("small")).toFixed(2)}x (target within 10%)`,
  );
  console.log(`load average at end: ${loadavg()}`);
} finally {
  await benches.small.close();
  await benches.large.close();
}
