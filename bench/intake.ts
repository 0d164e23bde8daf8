/**
 * bench/intake: POST /submissions loaded as the SDK's senders load it (random UUIDv4 ids,
 * dashes removed), beside two baselines measured in the same run, in interleaved rounds:
 *
 * - (a) `bench/intake_baseline.ts`: a bare `Deno.serve` doing the same durable writes (same
 *   two rows, same existence check, same SHA-256) through the project's group committer;
 * - (a') the same handler served by Sealpost's own HTTP layer (src/net, which issue 12's
 *   timeouts and connection caps need) instead of `Deno.serve`: random load only, the price of
 *   that layer alone;
 * - (b) `bench/intake_ceiling.ts`: the same rows straight into SQLite (Deno KV's table shape,
 *   WAL, synchronous FULL), one transaction per batch of `--connections` envelopes.
 *
 * Loads (see bench/intake.lua): `random` (1 KiB, the headline), `mix` (1/8/64 KiB with 10%
 * idempotent retries) and `seq` (sequential ids, an extra line only). Then the disk each
 * server used per 1 KiB envelope, and a flat-cost probe: intake on a store prefilled with
 * `--stored` envelopes against an empty one, in alternating rounds (`--flat-only`: that
 * probe alone, without the baselines' rounds).
 *
 * Usage: deno run -A bench/intake.ts [--seconds 8] [--connections 64] [--rounds 3]
 *   [--stored 1000000] [--flat-only] [--log]
 */
import { parseArgs } from "node:util";
import { publishForm, registerDatabase, type TestDatabase } from "../tests/_support/owner.ts";
import { freePort, type ServerProcess, spawnServer, waitFor } from "../tests/_support/process.ts";
import { keys } from "../src/store/kv/keys.ts";
import { KV_FILE } from "../src/store/kv/file.ts";
import { intakeRows } from "./_intake_rows.ts";
import { fmt, wrk, type WrkResult } from "./_wrk.ts";
import { SegmentLog, type SegmentRef, SEGMENTS_DIR } from "../src/store/kv/segments.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "8" },
    connections: { type: "string", default: "64" },
    rounds: { type: "string", default: "3" },
    stored: { type: "string", default: "1000000" },
    log: { type: "boolean", default: false },
    "flat-only": { type: "boolean", default: false },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const stored = Number(values.stored);
const flatOnly = values["flat-only"];
const script = new URL("./intake.lua", import.meta.url).pathname;
const here = (file: string) => new URL(file, import.meta.url).pathname;
type Mode = "random" | "mix" | "seq";

const loadavg = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Bytes of the files in `dir` whose names start with `prefix` (store, -wal, -shm). */
function bytesOf(dir: string, prefix: string): number {
  let total = 0;
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isFile && entry.name.startsWith(prefix)) {
      total += Deno.statSync(`${dir}/${entry.name}`).size;
    }
  }
  return total;
}

interface Sealpost {
  server: ServerProcess;
  db: TestDatabase;
  url: string;
}

/** Starts `sealpost serve` in a fresh data dir with one database and a published form. */
async function startSealpost(): Promise<Sealpost> {
  const data = await Deno.makeTempDir({ prefix: "sealpost-bench-" });
  const server = await spawnServer(data, { SEALPOST_SERVER_REQUEST_LOG: String(values.log) });
  const db = await registerDatabase(server);
  await publishForm(server, db, "bench");
  return { server, db, url: `${server.url}/submissions` };
}

async function startBaseline(fingerprint: string, server: "deno" | "net" = "deno") {
  const data = await Deno.makeTempDir({ prefix: "sealpost-baseline-" });
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      here("./intake_baseline.ts"),
      String(port),
      `${data}/baseline.kv`,
      fingerprint,
      server,
    ],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  await waitFor(url);
  return { child, url, data };
}

/** Envelopes per atomic write of {@link prefill} (two rows each, within Deno KV's 1,000). */
const PREFILL_BATCH = 400;

/**
 * Writes `count` envelopes straight into the stopped server's store in the layout intake
 * writes (the same key builders and row encoding, src/store/kv/envelope_rows.ts; the 1 KiB
 * ciphertexts appended to the segment files and fsynced before the rows that point into them),
 * `PREFILL_BATCH` per atomic write and without the existence checks, which new random ids
 * always pass: the fast way to a store of a million envelopes. Queue positions come before any
 * the server hands out next.
 */
async function prefill(dataDir: string, db: TestDatabase, count: number) {
  const kv = await Deno.openKv(`${dataDir}/${KV_FILE}`);
  const segments = await SegmentLog.open(`${dataDir}/${SEGMENTS_DIR}`);
  const ciphertext = crypto.getRandomValues(new Uint8Array(1024));
  await kv.set(keys.queueKey(db.fingerprint), db.publicKey);
  let seq = Date.now() * 1000 - count;
  for (let done = 0; done < count; done += PREFILL_BATCH) {
    const op = kv.atomic();
    const refs: SegmentRef[] = [];
    for (let i = done; i < Math.min(count, done + PREFILL_BATCH); i++) {
      const id = crypto.randomUUID().replaceAll("-", "");
      const ref = segments.append(ciphertext);
      refs.push(ref);
      const { head, queued } = intakeRows(id, db.fingerprint, ref);
      op.set(keys.submission(id), head).set(keys.queue(db.fingerprint, ++seq), queued);
    }
    await segments.flush();
    if (!(await op.commit()).ok) throw new Error("prefill: a write failed");
    for (const ref of refs) segments.settle(ref);
  }
  await segments.close();
  kv.close();
}

const tag = () => crypto.getRandomValues(new Uint8Array(4)).toHex();
const ciphertexts = {
  CT_1K: crypto.getRandomValues(new Uint8Array(1024)).toBase64(),
  CT_8K: crypto.getRandomValues(new Uint8Array(8192)).toBase64(),
  CT_64K: crypto.getRandomValues(new Uint8Array(65536)).toBase64(),
};
for (const [k, v] of Object.entries(ciphertexts)) Deno.env.set(k, v);

function load(url: string, mode: Mode, secs = seconds): Promise<WrkResult> {
  Deno.env.set("MODE", mode);
  Deno.env.set("RUN_TAG", tag());
  return wrk(url, script, { connections, seconds: secs });
}

async function ceiling(
  path: string,
  mode: Mode,
): Promise<{ rate: number; p99TxMs: number; envelopes: number }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      here("./intake_ceiling.ts"),
      path,
      String(seconds),
      String(connections),
      mode,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error("intake_ceiling failed");
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

const ok = (r: WrkResult) => r.requests - r.non2xx;
const row = (name: string, rps: number, p50: string, p99: number, extra = "") =>
  `| ${name} | ${fmt(rps, 0)} | ${p50} | ${fmt(p99, 1)} | ${extra} |`;

console.log(
  `bench/intake: ${connections} connections, ${seconds} s per run, ${rounds} interleaved rounds ` +
    `(a, a' in the random load, sealpost, b), medians; load average at start ${loadavg()}`,
);
const sealpost = await startSealpost();
Deno.env.set("FORM_ID", "bench");
Deno.env.set("RECIPIENT_PUBKEY", sealpost.db.publicKey);
const baseline = await startBaseline(sealpost.db.fingerprint);
const baselineNet = await startBaseline(sealpost.db.fingerprint, "net");
const ceilingDir = await Deno.makeTempDir({ prefix: "sealpost-ceiling-" });
const probes: Sealpost[] = [];
try {
  if (!flatOnly) {
    const okCount = { a: 0, s: 0 };
    for (const [key, url] of [["a", baseline.url], ["s", sealpost.url]] as const) {
      okCount[key] += ok(await load(url, "random", 2));
    }
    await load(baselineNet.url, "random", 2);
    const results: Record<
      string,
      { a: WrkResult[]; an: WrkResult[]; s: WrkResult[]; b: number[]; bp99: number[] }
    > = {};
    const ceilingCount = { random: 0, mix: 0 };
    for (const mode of ["random", "mix"] as const) {
      results[mode] = { a: [], an: [], s: [], b: [], bp99: [] };
      for (let round = 0; round < rounds; round++) {
        const a = await load(baseline.url, mode);
        const an = mode === "random" ? await load(baselineNet.url, mode) : null;
        const s = await load(sealpost.url, mode);
        const b = await ceiling(`${ceilingDir}/${mode}.db`, mode);
        results[mode].a.push(a);
        if (an) results[mode].an.push(an);
        results[mode].s.push(s);
        results[mode].b.push(b.rate);
        results[mode].bp99.push(b.p99TxMs);
        ceilingCount[mode] += b.envelopes;
        if (mode === "random") {
          okCount.a += ok(a);
          okCount.s += ok(s);
        }
        console.log(
          `  ${mode} round ${round + 1}: a ${fmt(a.rps, 0)} req/s p99 ${fmt(a.p99ms, 1)} ms, ` +
            (an ? `a' ${fmt(an.rps, 0)} req/s p99 ${fmt(an.p99ms, 1)} ms, ` : "") +
            `sealpost ${fmt(s.rps, 0)} req/s p99 ${fmt(s.p99ms, 1)} ms (non-2xx ${s.non2xx}), ` +
            `b ${fmt(b.rate, 0)} envelopes/s; load ${loadavg()}`,
        );
      }
      if (mode === "random") {
        // Disk per 1 KiB envelope, before the mix adds other sizes.
        const disk = {
          a: (bytesOf(baseline.data, "baseline.kv") +
            bytesOf(`${baseline.data}/baseline.kv.segments`, "")) / okCount.a,
          s: (bytesOf(sealpost.server.dataDir, "sealpost.kv") +
            bytesOf(`${sealpost.server.dataDir}/${SEGMENTS_DIR}`, "")) / okCount.s,
          b: bytesOf(ceilingDir, "random.db") / ceilingCount.random,
        };
        console.log(
          `\nDisk per 1 KiB envelope (store file + WAL + segment files / envelopes stored): sealpost ` +
            `${fmt(disk.s, 0)} B (${
              fmt(disk.s / 1024, 2)
            }x the ciphertext; ${okCount.s} envelopes), ` +
            `a ${fmt(disk.a, 0)} B (${fmt(disk.a / 1024, 2)}x), b ${fmt(disk.b, 0)} B ` +
            `(${fmt(disk.b / 1024, 2)}x); target <= 1.6x\n`,
        );
      }
    }
    const seq = { a: await load(baseline.url, "seq"), s: await load(sealpost.url, "seq") };

    console.log("| load | server | req/s | p50 ms | p99 ms | non-2xx, socket errors |");
    console.log("|---|---|---:|---:|---:|---|");
    for (const mode of ["random", "mix"] as const) {
      const r = results[mode];
      const label = mode === "random" ? "random ids, 1 KiB" : "random ids, 1/8/64 KiB, 10% retries";
      // One server's rounds: median rate and latencies, summed failures.
      const served = (name: string, runs: WrkResult[]) => {
        const m = (f: (x: WrkResult) => number) => median(runs.map(f));
        const sum = (f: (x: WrkResult) => number) => runs.reduce((n, x) => n + f(x), 0);
        const failures = `${sum((x) => x.non2xx)}, ${sum((x) => x.errors)}`;
        console.log(
          `| ${label} ` +
            row(name, m((x) => x.rps), fmt(m((x) => x.p50ms), 1), m((x) => x.p99ms), failures),
        );
      };
      served("(a) Deno.serve + same writes, group commit", r.a);
      if (r.an.length > 0) served("(a') the same on src/net", r.an);
      served("sealpost POST /submissions", r.s);
      console.log(
        `| ${label} ` +
          row(
            `(b) raw SQLite, ${connections} per transaction`,
            median(r.b),
            "–",
            median(r.bp99),
            "p99 is per transaction",
          ),
      );
    }
    for (const [name, r] of [["(a)", seq.a], ["sealpost", seq.s]] as const) {
      console.log(
        `| sequential ids, 1 KiB (extra line) ` +
          row(name, r.rps, fmt(r.p50ms, 1), r.p99ms, `${r.non2xx}, ${r.errors}`),
      );
    }
    console.log("\nRatios (median of the per-round ratios):");
    for (const mode of ["random", "mix"] as const) {
      const r = results[mode];
      const toA = median(r.s.map((s, i) => s.rps / r.a[i].rps));
      const toB = median(r.s.map((s, i) => s.rps / r.b[i]));
      const p99 = median(r.s.map((s) => s.p99ms));
      console.log(
        `  ${mode.padEnd(6)}: sealpost/(a) ${fmt(toA, 2)} (target >= 0.9), sealpost/(b) ` +
          `${fmt(toB, 2)} (target >= 0.6), sealpost p99 ${fmt(p99, 1)} ms (target < 25 ms)`,
      );
      if (r.an.length > 0) {
        const netToA = median(r.an.map((an, i) => an.rps / r.a[i].rps));
        const toNet = median(r.s.map((s, i) => s.rps / r.an[i].rps));
        console.log(
          `          (a')/(a) ${fmt(netToA, 2)}: the serving layer alone; sealpost/(a') ` +
            `${fmt(toNet, 2)}: routing, validation, metrics and the rest`,
        );
      }
    }
  }
  if (stored > 0) {
    const empty = await startSealpost();
    const full = await startSealpost();
    probes.push(empty, full);
    await full.server.stop();
    const t0 = performance.now();
    await prefill(full.server.dataDir, full.db, stored);
    console.log(
      `\nFlat cost: prefilled ${stored} envelopes (1 KiB, random ids) in ` +
        `${fmt((performance.now() - t0) / 1000, 0)} s: store ${
          fmt(bytesOf(full.server.dataDir, KV_FILE) / 2 ** 20, 0)
        } MiB, segment files ${
          fmt(bytesOf(`${full.server.dataDir}/${SEGMENTS_DIR}`, "") / 2 ** 20, 0)
        } MiB; load ${loadavg()}`,
    );
    full.server = await spawnServer(full.server.dataDir, {
      SEALPOST_SERVER_REQUEST_LOG: String(values.log),
    });
    full.url = `${full.server.url}/submissions`;
    for (const p of [empty, full]) {
      Deno.env.set("RECIPIENT_PUBKEY", p.db.publicKey);
      await load(p.url, "random", 2); // warm-up, not counted
    }
    const runs = { empty: [] as WrkResult[], full: [] as WrkResult[] };
    for (let round = 0; round < rounds; round++) {
      for (const [name, p] of [["empty", empty], ["full", full]] as const) {
        Deno.env.set("RECIPIENT_PUBKEY", p.db.publicKey);
        runs[name].push(await load(p.url, "random"));
      }
      console.log(
        `  round ${round + 1}: empty ${fmt(runs.empty[round].rps, 0)} req/s p99 ` +
          `${fmt(runs.empty[round].p99ms, 1)} ms, ${stored} stored ${
            fmt(runs.full[round].rps, 0)
          } ` +
          `req/s p99 ${fmt(runs.full[round].p99ms, 1)} ms; load ${loadavg()}`,
      );
    }
    const rps = (xs: WrkResult[]) => median(xs.map((x) => x.rps));
    const p99 = (xs: WrkResult[]) => median(xs.map((x) => x.p99ms));
    console.log(
      `  medians: empty ${fmt(rps(runs.empty), 0)} req/s p99 ${fmt(p99(runs.empty), 1)} ms; ` +
        `${stored} stored ${fmt(rps(runs.full), 0)} req/s p99 ${fmt(p99(runs.full), 1)} ms; ` +
        `throughput ${fmt(rps(runs.full) / rps(runs.empty), 2)}x, p99 ${
          fmt(p99(runs.full) / p99(runs.empty), 2)
        }x (target within 10%)`,
    );
  }
  console.log(`\nload average at end: ${loadavg()}`);
} finally {
  for (const p of [sealpost, ...probes]) {
    await p.server.stop();
    await Deno.remove(p.server.dataDir, { recursive: true });
  }
  for (const b of [baseline, baselineNet]) {
    b.child.kill("SIGTERM");
    await b.child.status;
    await Deno.remove(b.data, { recursive: true });
  }
  await Deno.remove(ceilingDir, { recursive: true });
}
