/**
 * The relay's metadata on PostgreSQL beside Deno KV (and the in-memory rate-limit buckets), in
 * one run, operations a second:
 *
 * - rate-limit takes (one per rate-limited request): in memory vs one PostgreSQL upsert, with 1
 *   and 16 requests at once, over many addresses and on one hot address;
 * - blob uploads recorded (`recordUpload`: quota check and usage in one atomic write), 16 at
 *   once, by many users and by one user (whose uploads wait for each other's usage row on
 *   PostgreSQL, and retry on Deno KV).
 *
 * `deno run -A bench/relay_meta.ts [--seconds 1] [--rounds 3]` (seconds per measurement, split into
 * rounds that interleave the backends). Needs the test PostgreSQL (started on first use).
 */
import { parseArgs } from "node:util";
import { KvBlobMeta } from "../src/store/kv/blob_meta.ts";
import { MemoryRateLimits } from "../src/store/kv/rate_limits.ts";
import { PgBlobMeta } from "../src/store/pg/blob_meta.ts";
import { PgRateLimits } from "../src/store/pg/rate_limits.ts";
import type { BlobMetaPort } from "../src/store/ports/blob_meta.ts";
import type { RateLimitPort } from "../src/store/ports/rate_limits.ts";
import { freshKv } from "../tests/store/contract/_kv.ts";
import { freshPg } from "../tests/store/contract/_pg.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { seconds: { type: "string" }, rounds: { type: "string" } },
});
const SECONDS = Number(values.seconds ?? 1);
const ROUNDS = Number(values.rounds ?? 3);
const SLICE_MS = (SECONDS / ROUNDS) * 1000;

/**
 * Operations done by `concurrency` loops calling `op(i)` for `ms`: those that succeeded and
 * those that threw.
 */
async function run(concurrency: number, ms: number, op: (i: number) => Promise<unknown>) {
  let i = 0;
  let ok = 0;
  let failed = 0;
  const until = performance.now() + ms;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < until) {
      await op(i++).then(() => ok++, () => failed++);
    }
  }));
  return { ok, failed };
}

interface Case {
  name: string;
  concurrency: number;
  ops: Record<string, (i: number) => Promise<unknown>>;
}

const kv = await freshKv();
const pg = await freshPg();
const pool = pg.open({ max: 16 });
try {
  const limits: Record<string, RateLimitPort> = {
    memory: new MemoryRateLimits(),
    postgres: new PgRateLimits(pool),
  };
  const blobs: Record<string, BlobMetaPort> = {
    "deno kv": new KvBlobMeta(kv.kv),
    postgres: new PgBlobMeta(pool),
  };
  // A rule no run exhausts: every take writes a token off.
  const rule = { per_minute: 1e9, burst: 1e9 };
  const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const upload = (port: BlobMetaPort, user: (i: number) => string) => (i: number) =>
    port.recordUpload(
      { userId: user(i), hash: i.toString(16).padStart(64, "0") },
      { mime: null, sizeBytes: 1 },
      1e12,
      new Date(),
    );
  const byBackend = <P>(ports: Record<string, P>, op: (p: P) => (i: number) => Promise<unknown>) =>
    Object.fromEntries(Object.entries(ports).map(([name, p]) => [name, op(p)]));
  const cases: Case[] = [1, 16].flatMap((concurrency) => [
    {
      name: `rate-limit take, many addresses, ${concurrency} at once`,
      concurrency,
      ops: byBackend(limits, (p) => (i) => p.take("bench", address(i), rule)),
    },
    {
      name: `rate-limit take, one address, ${concurrency} at once`,
      concurrency,
      ops: byBackend(limits, (p) => () => p.take("bench_hot", "10.0.0.1", rule)),
    },
  ]);
  let round = 0;
  cases.push(
    {
      name: "blob upload recorded, many users, 16 at once",
      concurrency: 16,
      ops: byBackend(blobs, (p) => upload(p, (i) => `u${round}-${i}`)),
    },
    {
      name: "blob upload recorded, one user, 16 at once",
      concurrency: 16,
      ops: byBackend(blobs, (p) => upload(p, () => `one${round}`)),
    },
  );
  const totals = new Map<string, { ok: number; failed: number }>();
  for (; round < ROUNDS; round++) {
    for (const c of cases) {
      for (const [backend, op] of Object.entries(c.ops)) {
        const key = `${c.name}\t${backend}`;
        const done = await run(c.concurrency, SLICE_MS, op);
        const total = totals.get(key) ?? { ok: 0, failed: 0 };
        totals.set(key, { ok: total.ok + done.ok, failed: total.failed + done.failed });
      }
    }
  }
  console.log(`${SECONDS} s per measurement in ${ROUNDS} interleaved rounds`);
  console.log("| case | backend | ops/s | failed/s |\n|---|---|---:|---:|");
  for (const [key, { ok, failed }] of totals) {
    const [name, backend] = key.split("\t");
    const rate = (n: number) => Math.round(n / SECONDS);
    console.log(`| ${name} | ${backend} | ${rate(ok)} | ${rate(failed)} |`);
  }
} finally {
  await pg.close();
  await kv.close();
}
