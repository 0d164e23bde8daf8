/**
 * Operations benchmark: what a metrics scrape and a backup cost on a store holding a deep
 * queue, beside same-run baselines.
 *
 * - Queue depth: `KeyCounter` (keys counted in the SQLite key B-tree) against counting the
 *   same prefix with `kv.list` (which reads every value).
 * - Backup and restore: `createBackup` (VACUUM INTO snapshot + tar) and `restoreBackup`
 *   against `Deno.copyFile` of the store file (no consistency, no checks: the floor).
 *
 * `deno run -A bench/ops.ts [entries] [valueBytes]` (defaults 20000 and 4096).
 */
import { join } from "node:path";
import { createBackup } from "../src/ops/backup.ts";
import { restoreBackup } from "../src/ops/restore.ts";
import { KeyCounter } from "../src/store/kv/key_count.ts";
import { keys } from "../src/store/kv/keys.ts";
import { KV_FILE } from "../src/store/kv/file.ts";

const entries = Number(Deno.args[0] ?? 20_000);
const valueBytes = Number(Deno.args[1] ?? 4096);
const dir = await Deno.makeTempDir({ prefix: "sealpost-bench-ops-" });
const data = join(dir, "data");
await Deno.mkdir(data);
const kv = await Deno.openKv(join(data, KV_FILE));

async function time<T>(work: () => Promise<T> | T): Promise<[T, number]> {
  const start = performance.now();
  const result = await work();
  return [result, performance.now() - start];
}

async function best<T>(runs: number, work: () => Promise<T> | T): Promise<[T, number]> {
  let out: [T, number] | null = null;
  for (let i = 0; i < runs; i++) {
    const run = await time(work);
    if (!out || run[1] < out[1]) out = run;
  }
  return out!;
}

try {
  const fp = "f".repeat(64);
  const value = crypto.getRandomValues(new Uint8Array(valueBytes));
  for (let i = 0; i < entries; i += 100) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(entries, i + 100); j++) {
      op.set(keys.queue(fp, j), { ciphertext: value });
    }
    await op.commit();
  }
  const size = (await Deno.stat(join(data, KV_FILE))).size;
  console.log(
    `store: ${entries} queue rows of ${valueBytes} B, ${(size / 2 ** 20).toFixed(1)} MiB`,
  );

  const counter = new KeyCounter(join(data, KV_FILE));
  const [counted, keyMs] = await best(5, () => counter.count(keys.queueOf(fp), 100_000));
  const [listed, listMs] = await best(3, async () => {
    let n = 0;
    for await (const _ of kv.list({ prefix: keys.queueOf(fp) })) n++;
    return n;
  });
  counter.close();
  console.log("\n| queue depth of one queue | count | ms |\n| --- | ---: | ---: |");
  console.log(`| baseline: kv.list | ${listed} | ${listMs.toFixed(1)} |`);
  console.log(`| KeyCounter (metrics) | ${counted} | ${keyMs.toFixed(1)} |`);

  const [, copyMs] = await time(() => Deno.copyFile(join(data, KV_FILE), join(dir, "copy.kv")));
  const archive = join(dir, "backup.tar");
  const [summary, backupMs] = await time(() => createBackup(data, archive));
  const [, restoreMs] = await time(() => restoreBackup(archive, join(dir, "restored")));
  console.log("\n| backup | MiB | ms |\n| --- | ---: | ---: |");
  console.log(
    `| baseline: copyFile of the store | ${(size / 2 ** 20).toFixed(1)} | ${copyMs.toFixed(0)} |`,
  );
  console.log(
    `| sealpost backup (snapshot + tar) | ${(summary.bytes / 2 ** 20).toFixed(1)} | ${
      backupMs.toFixed(0)
    } |`,
  );
  console.log(
    `| sealpost restore (checked) | ${(summary.bytes / 2 ** 20).toFixed(1)} | ${
      restoreMs.toFixed(0)
    } |`,
  );
} finally {
  kv.close();
  await Deno.remove(dir, { recursive: true });
}
