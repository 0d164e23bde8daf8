/**
 * bench/vault_store: ingest's record writes through the records port (`applySubmission` of
 * records of about 1 KiB, 64 in flight per worker), on Deno KV (the baseline, same run) and on
 * PostgreSQL (the test cluster of tests/_support/services/postgres.ts, a fresh schema per run):
 * one vault worker (one pool), two workers (two pools, as two processes would be, each saving
 * half), and one save at a time (a transaction each: what group commit saves).
 *
 * Usage: deno run -A bench/vault_store.ts [--count 6000] [--rounds 2]
 */
import { parseArgs } from "node:util";
import { openStore } from "../src/store/kv/file.ts";
import { vaultKvPorts } from "../src/store/kv/vault_ports.ts";
import { PgRecords } from "../src/store/pg/records.ts";
import type { RecordsPort, RecordWrite } from "../src/store/ports/records.ts";
import { freshPg } from "../tests/store/contract/_pg.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { count: { type: "string", default: "6000" }, rounds: { type: "string", default: "2" } },
});
const count = Number(values.count);
const rounds = Number(values.rounds);
const IN_FLIGHT = 64;

function write(i: number, run: string): RecordWrite {
  const id = `${run}-${String(i).padStart(6, "0")}`;
  return {
    formId: "bench",
    recordId: id,
    schemaVersion: 1,
    values: { name: `sender ${i}`, email: "someone@example.com", message: "x".repeat(900) },
    submissionId: id,
    appliedVersion: 1,
  };
}

/** Saves `count` records split over `workers`, `inFlight` at once each; records per second. */
async function save(workers: RecordsPort[], inFlight: number, run: string): Promise<number> {
  const started = performance.now();
  await Promise.all(workers.map(async (records, w) => {
    let next = w;
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (next < count) {
        const i = next;
        next += workers.length;
        const outcome = await records.applySubmission(write(i, run), []);
        if (outcome !== "record") throw new Error(`record ${i}: ${outcome}`);
      }
    }));
  }));
  return count / ((performance.now() - started) / 1000);
}

const results = new Map<string, number[]>();
const note = (name: string, rate: number) => {
  results.set(name, [...results.get(name) ?? [], rate]);
  console.log(`${name.padEnd(36)} ${Math.round(rate).toLocaleString("en")} records/s`);
};

for (let round = 1; round <= rounds; round++) {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-bench-vault-store-" });
  const kv = await openStore(dir);
  note("(a) Deno KV, one process", await save([vaultKvPorts(kv).records], IN_FLIGHT, `k${round}`));
  kv.close();
  await Deno.remove(dir, { recursive: true });
  const pg = await freshPg();
  try {
    const one = new PgRecords(pg.sql);
    note("PostgreSQL, one worker", await save([one], IN_FLIGHT, `p${round}`));
    const two = [new PgRecords(pg.open()), new PgRecords(pg.open())];
    note("PostgreSQL, two workers", await save(two, IN_FLIGHT, `q${round}`));
    note("PostgreSQL, one save at a time", await save([one], 1, `s${round}`));
  } finally {
    await pg.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const baseline = median(results.get("(a) Deno KV, one process")!);
console.log(`\n${count} records per run, ${rounds} rounds; medians and ratio to (a):`);
for (const [name, rates] of results) {
  const m = median(rates);
  console.log(
    `${name.padEnd(36)} ${Math.round(m).toLocaleString("en").padStart(7)}  ${
      (m / baseline).toFixed(2)
    }`,
  );
}
