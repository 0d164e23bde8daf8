/**
 * bench/ingest: 10,000 queued 1 KiB submissions opened, validated and saved by the vault
 * (role all: in-process queue, pull and ack included), beside the raw sealed-box open rate of
 * the same machine in the same run with the same threads (the ceiling): ingest opens on one
 * worker thread (`SealedBoxOpener`) while the main thread does the store work, so the ceiling
 * is the same worker opening the same boxes with nothing else to do, all of them in flight.
 * The main thread's own sequential open rate is printed as an extra line.
 *
 * Usage: deno run -A bench/ingest.ts [--count 10000]
 */
import { parseArgs } from "node:util";
import { open } from "../src/crypto/sealed_box.ts";
import { SealedBoxOpener } from "../src/vault/opener.ts";
import { openIngestBench } from "./_ingest.ts";
import { cpuPerItem, threadCpu } from "./cpu.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { count: { type: "string", default: "10000" } },
});
const count = Number(values.count);
const bench = await openIngestBench();
const { vault, db } = bench;
try {
  const ciphertexts = await bench.queue(count);
  console.log(
    `queued ${count} envelopes of ${ciphertexts[0].length} ciphertext bytes ` +
      `(plaintext ${ciphertexts[0].length - 48} bytes)`,
  );

  const pair = await vault.keys.databaseKey(db.fingerprint);
  const mainThread = async () => {
    const t0 = performance.now();
    for (const sealed of ciphertexts) await open(sealed, pair.publicKey, pair.secretKey);
    return count / ((performance.now() - t0) / 1000);
  };
  const ceiling = async () => {
    const opener = new SealedBoxOpener();
    try {
      const t0 = performance.now();
      await Promise.all(ciphertexts.map((c) => opener.open(c, pair.publicKey, pair.secretKey)));
      return count / ((performance.now() - t0) / 1000);
    } finally {
      opener.close();
    }
  };
  // Warmed up, measured before and after the ingest; the higher one is the ceiling.
  for (const sealed of ciphertexts.slice(0, 1000)) {
    await open(sealed, pair.publicKey, pair.secretKey);
  }
  await ceiling();
  const before = await ceiling();
  const single = await mainThread();

  const cpu0 = threadCpu();
  const t0 = performance.now();
  const result = await vault.ingest.drain();
  const ingestSeconds = (performance.now() - t0) / 1000;
  const cpu = cpuPerItem(cpu0, threadCpu(), count);
  const openRate = Math.max(before, await ceiling());
  const ingestRate = result.records / ingestSeconds;
  if (result.records !== count) {
    throw new Error(`Expected ${count} records, got ${JSON.stringify(result)}`);
  }
  console.log(
    `open ceiling:   ${openRate.toFixed(0)} opens/s (one opening worker, as ingest uses, all ` +
      `boxes in flight; best of the runs before and after the ingest)`,
  );
  console.log(`main thread:    ${single.toFixed(0)} opens/s (sequential; extra line)`);
  console.log(
    `vault ingest:   ${ingestRate.toFixed(0)} records/s ` +
      `(${count} in ${ingestSeconds.toFixed(2)} s: pull, open, validate, save + event, ack)`,
  );
  console.log(`ingest CPU µs per record, by thread: ${cpu}`);
  console.log(
    `ratio:          ${(ingestRate / openRate).toFixed(2)}x of the open ceiling (target >= 0.8)`,
  );
} finally {
  await bench.close();
}
