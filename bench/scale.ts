/**
 * bench/scale: what more processes on shared engines buy on this machine, in one run.
 *
 * 1. **Intake**: POST /submissions (wrk, bench/intake.lua `random`: fresh UUIDv4 ids, 1 KiB
 *    ciphertexts) against the KV single process (role all, its own Deno KV file: the same-run
 *    baseline) and against 1, 2 and 3 relay processes (role relay) on one PostgreSQL schema,
 *    the connections split evenly over the relays (one wrk per relay, as a load balancer
 *    would spread them). Interleaved rounds, medians. For each run the CPU the relays and the
 *    PostgreSQL cluster used, and the machine's, in cores (2 = both cores busy).
 * 2. **Ingest**: `--count` envelopes queued while the vault workers are stopped, then drained
 *    (pull over HTTP, open, validate, save, ack) by 1 vault worker on KV (a relay and a vault
 *    process each on its own KV file: the baseline), and by 1 and 2 vault workers on
 *    PostgreSQL behind 2 relays. Records per second and CPU from the workers' start to 95% of
 *    the records saved (the workers' `sealpost_records_saved_total`), and the time to 100%
 *    (the last pages can wait out a lease).
 *
 * PostgreSQL: by default a cluster of the run's own with PostgreSQL's durable settings (fsync,
 * synchronous_commit, full_page_writes on: a commit is on disk before the answer, as with KV);
 * `--cluster tests` uses the tests' shared cluster instead (all three off: an upper bound).
 * The PostgreSQL CPU is that cluster's processes'.
 *
 * Usage: deno run -A bench/scale.ts [--seconds 8] [--connections 64] [--rounds 3]
 *   [--count 5000] [--skip intake|ingest] [--cluster durable|tests]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { servicesDir } from "../tests/_support/services/_run.ts";
import { postgresDown, type PostgresEnv, postgresUp } from "../tests/_support/services/postgres.ts";
import { publishForm, registerDatabase, type Target } from "../tests/_support/owner.ts";
import { spawnServer } from "../tests/_support/process.ts";
import {
  type Backing,
  credentialsOf,
  type Deployment,
  KV_BACKING,
  pgBacking,
  poll,
  queued,
  sealEnvelopes,
  type ServeProcess,
  spawnServe,
  startDeployment,
  submitSpread,
} from "../tests/_support/topology.ts";
import { threadCpu } from "./cpu.ts";
import { fmt, wrk, type WrkResult } from "./_wrk.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "8" },
    connections: { type: "string", default: "64" },
    rounds: { type: "string", default: "3" },
    count: { type: "string", default: "5000" },
    skip: { type: "string", default: "" },
    cluster: { type: "string", default: "durable" },
  },
});
const durable = values.cluster === "durable";
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const count = Number(values.count);
const script = new URL("./intake.lua", import.meta.url).pathname;

const loadavg = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** CPU milliseconds of the processes `pids` (all their threads). */
function cpuOf(pids: number[]): number {
  let ms = 0;
  for (const pid of pids) for (const t of threadCpu(pid).values()) ms += t;
  return ms;
}

/** The benchmark's PostgreSQL cluster: its postmaster and every process it started. */
function postgresPids(): number[] {
  const postmaster = Number(
    Deno.readTextFileSync(join(cluster.dir, "postgres", "data", "postmaster.pid")).split("\n")[0],
  );
  const out = [postmaster];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === postmaster) out.push(Number(entry.name));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

/** Busy CPU milliseconds of the whole machine (every core), from /proc/stat. */
function machineBusyMs(): number {
  const [, ...ticks] = Deno.readTextFileSync("/proc/stat").split("\n")[0].trim().split(/\s+/);
  const n = ticks.map(Number);
  // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
  return ((n[0] + n[1] + n[2] + n[5] + n[6] + n[7]) * 1000) / 100;
}

/** CPU used during `work`, in cores (CPU seconds per wall second), by group. */
async function measured<T>(
  groups: Record<string, () => number[]>,
  work: () => Promise<T>,
): Promise<{ result: T; cores: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(groups).map(([k, pids]) => [k, cpuOf(pids())]));
  const busy0 = machineBusyMs();
  const t0 = performance.now();
  const result = await work();
  const wall = performance.now() - t0;
  const cores: Record<string, number> = {};
  for (const [k, pids] of Object.entries(groups)) cores[k] = (cpuOf(pids()) - before[k]) / wall;
  cores.machine = (machineBusyMs() - busy0) / wall;
  return { result, cores };
}

/** One wrk per URL at once, the connections split evenly; figures summed (p99: the worst). */
async function spreadLoad(urls: string[]): Promise<WrkResult> {
  Deno.env.set("MODE", "random");
  Deno.env.set("RUN_TAG", crypto.randomUUID().replaceAll("-", "").slice(0, 8));
  const each = await Promise.all(urls.map((url) =>
    wrk(`${url}/submissions`, script, {
      connections: Math.floor(connections / urls.length),
      threads: 1,
      seconds,
    })
  ));
  return {
    rps: each.reduce((n, r) => n + r.rps, 0),
    p50ms: Math.max(...each.map((r) => r.p50ms)),
    p99ms: Math.max(...each.map((r) => r.p99ms)),
    requests: each.reduce((n, r) => n + r.requests, 0),
    non2xx: each.reduce((n, r) => n + r.non2xx, 0),
    errors: each.reduce((n, r) => n + r.errors, 0),
  };
}

/** A form `bench` published on `target` with a fresh database key; its public key. */
async function benchForm(target: Target): Promise<string> {
  const db = await registerDatabase(target);
  await publishForm(target, db, "bench");
  return db.publicKey;
}

async function intake(): Promise<void> {
  Deno.env.set("CT_1K", crypto.getRandomValues(new Uint8Array(1024)).toBase64());
  Deno.env.set("FORM_ID", "bench");
  const kvDir = await Deno.makeTempDir({ prefix: "sealpost-bench-scale-kv-" });
  const kv = await spawnServer(kvDir);
  const backing = await pgBacking(cluster.env);
  const relays: ServeProcess[] = [];
  try {
    const kvKey = await benchForm(kv);
    const relay = (i: number) =>
      spawnServe(`bench-relay-${i}`, { args: ["--role", "relay"], env: backing.env });
    relays.push(await relay(1));
    relays.push(...await Promise.all([relay(2), relay(3)]));
    const pgKey = await benchForm({
      url: relays[0].url,
      credentials: await credentialsOf(relays[0].dataDir),
    });
    const subjects = [
      { name: "KV, 1 process (role all)", urls: [kv.url], key: kvKey, pids: [kv.child.pid] },
      ...[1, 2, 3].map((n) => ({
        name: `PostgreSQL, ${n} relay${n > 1 ? "s" : ""}`,
        urls: relays.slice(0, n).map((r) => r.url),
        key: pgKey,
        pids: relays.slice(0, n).map((r) => r.child.pid),
      })),
    ];
    // Warm-up: JIT, connection pools, the form caches.
    for (const s of subjects) {
      Deno.env.set("RECIPIENT_PUBKEY", s.key);
      await spreadLoad(s.urls);
    }
    const runs = new Map(
      subjects.map((s) => [s.name, [] as { r: WrkResult; cores: Record<string, number> }[]]),
    );
    for (let round = 0; round < rounds; round++) {
      for (const s of subjects) {
        Deno.env.set("RECIPIENT_PUBKEY", s.key);
        const { result: r, cores } = await measured(
          { sealpost: () => s.pids, postgres: postgresPids },
          () => spreadLoad(s.urls),
        );
        runs.get(s.name)!.push({ r, cores });
        console.error(
          `round ${round + 1} ${s.name}: ${fmt(r.rps, 0)} req/s, p99 ${fmt(r.p99ms, 1)} ms, ` +
            `non-2xx ${r.non2xx}, errors ${r.errors}; load ${loadavg()}`,
        );
      }
    }
    const base = median(runs.get(subjects[0].name)!.map((x) => x.r.rps));
    console.log(
      `\nIntake (wrk, ${connections} connections split over the relays, ${seconds} s, ` +
        `${rounds} interleaved rounds, medians; 1 KiB, random ids)\n`,
    );
    console.log(
      "| subject | submissions/s | vs KV | p99 ms | sealpost cores | postgres cores | " +
        "machine cores | CPU µs per submission: sealpost + postgres |",
    );
    console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const s of subjects) {
      const xs = runs.get(s.name)!;
      const rps = median(xs.map((x) => x.r.rps));
      const core = (k: string) => fmt(median(xs.map((x) => x.cores[k])), 2);
      // CPU seconds per wall second over submissions per second: CPU per submission.
      const us = (k: string) => fmt(median(xs.map((x) => (x.cores[k] / x.r.rps) * 1e6)), 0);
      console.log(
        `| ${s.name} | ${fmt(rps, 0)} | ${fmt(rps / base, 2)}x | ` +
          `${fmt(median(xs.map((x) => x.r.p99ms)), 1)} | ${core("sealpost")} | ` +
          `${core("postgres")} | ${core("machine")} | ${us("sealpost")} + ${us("postgres")} |`,
      );
    }
    const bad = [...runs.values()].flat().reduce((n, x) => n + x.r.non2xx + x.r.errors, 0);
    console.log(`\nnon-2xx answers and socket errors over all runs: ${bad}`);
  } finally {
    await Promise.all(relays.map((r) => r.stop()));
    await kv.stop();
    await backing.close();
    await Deno.remove(kvDir, { recursive: true });
    for (const r of relays) await Deno.remove(r.dataDir, { recursive: true });
  }
}

/** Records the workers saved since they started (their `sealpost_records_saved_total`). */
async function saved(workers: ServeProcess[]): Promise<number> {
  let total = 0;
  for (const w of workers) {
    const text = await (await fetch(`${w.url}/metrics`)).text();
    for (const line of text.split("\n")) {
      if (line.startsWith("sealpost_records_saved_total")) total += Number(line.split(" ").at(-1));
    }
  }
  return total;
}

/** Queues `count` envelopes while `d`'s workers are stopped, starts `workers` of them, times the drain. */
async function drain(d: Deployment, workers: ServeProcess[]) {
  await Promise.all(d.vaults.map((v) => v.alive ? v.stop() : null));
  const envelopes = await sealEnvelopes(d.manifest, count);
  const spread = await submitSpread(envelopes, d.liveRelays);
  if (spread.acknowledged.size !== count) throw new Error("Not every submission was acknowledged");
  // The active drain, timed and measured to 95% saved (the last pages can wait out a lease).
  const most = Math.ceil(count * 0.95);
  const t0 = performance.now();
  const { result: seconds, cores } = await measured({
    vaults: () => workers.map((w) => w.child.pid),
    relays: () => d.relays.map((r) => r.child.pid),
    postgres: postgresPids,
  }, async () => {
    await Promise.all(workers.map((w) => w.restart()));
    await poll("95% saved", async () => await saved(workers) >= most || null, 600_000, 100);
    return (performance.now() - t0) / 1000;
  });
  await poll("Every record saved", async () => await saved(workers) >= count || null, 600_000, 100);
  const all = (performance.now() - t0) / 1000;
  await poll(
    "The queue drained",
    async () => await queued(d.relays[0].url, d.relayToken, d.fingerprint) === 0 || null,
    600_000,
    100,
  );
  return { rate: most / seconds, seconds, all, cores };
}

async function ingest(): Promise<void> {
  const rows: string[] = [];
  const row = (name: string, x: Awaited<ReturnType<typeof drain>>, base: number) =>
    rows.push(
      `| ${name} | ${fmt(x.rate, 0)} | ${fmt(x.rate / base, 2)}x | ${fmt(x.seconds, 1)} | ` +
        `${fmt(x.all, 1)} | ` +
        `${fmt(x.cores.vaults, 2)} | ${fmt(x.cores.relays, 2)} | ` +
        `${fmt(x.cores.postgres, 2)} | ${fmt(x.cores.machine, 2)} | ` +
        [x.cores.vaults, x.cores.relays, x.cores.postgres]
          .map((c) => fmt((c / x.rate) * 1e6, 0)).join(" + ") +
        " |",
    );
  const run = async (backing: Backing, relays: number, vaults: number) =>
    await startDeployment({ relays, vaults, backing });
  const kv = await run(KV_BACKING, 1, 1);
  let base: number;
  try {
    const x = await drain(kv, kv.vaults);
    base = x.rate;
    row("KV: 1 relay, 1 vault worker", x, base);
  } finally {
    await kv.close();
  }
  const backing = await pgBacking(cluster.env);
  try {
    const pg = await run(backing, 2, 2);
    try {
      row("PostgreSQL: 2 relays, 1 vault worker", await drain(pg, pg.vaults.slice(0, 1)), base);
      row("PostgreSQL: 2 relays, 2 vault workers", await drain(pg, pg.vaults), base);
    } finally {
      await pg.close();
    }
  } finally {
    await backing.close();
  }
  console.log(
    `\nIngest (${count} queued demo-form envelopes; rate and CPU from the workers' start to 95% ` +
      `saved (their records-saved counters), then the time to 100%; load ${loadavg()})\n`,
  );
  console.log(
    "| subject | records/s to 95% | vs KV | s to 95% | s to 100% | vault cores | relay cores | " +
      "postgres cores | machine cores | CPU µs per record: vault + relay + postgres |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const line of rows) console.log(line);
}

/**
 * The PostgreSQL cluster of the run: by default one of its own with PostgreSQL's durable
 * settings (as KV's fsync), in a services folder of its own; `--cluster tests` uses the tests'
 * shared cluster (fsync, synchronous_commit and full_page_writes off).
 */
async function startCluster(): Promise<{ env: PostgresEnv; dir: string; stop(): Promise<void> }> {
  const shared = Deno.env.get("SERVICES_DIR");
  const dir = durable ? await Deno.makeTempDir({ prefix: "sealpost-bench-pg-" }) : servicesDir();
  // The server runs as the postgres user: it must reach its folder inside.
  if (durable) await Deno.chmod(dir, 0o755);
  const inDir = async <T>(work: () => Promise<T>): Promise<T> => {
    Deno.env.set("SERVICES_DIR", dir);
    try {
      return await work();
    } finally {
      if (shared === undefined) Deno.env.delete("SERVICES_DIR");
      else Deno.env.set("SERVICES_DIR", shared);
    }
  };
  const env = await inDir(() => postgresUp({ durable }));
  return {
    env,
    dir,
    stop: async () => {
      if (!durable) return;
      await inDir(() => postgresDown());
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

const cluster = await startCluster();
try {
  console.log(
    `bench/scale on ${navigator.hardwareConcurrency} cores; PostgreSQL cluster: ` +
      (durable
        ? "the run's own, durable (fsync, synchronous_commit, full_page_writes on)"
        : "the tests' (fsync, synchronous_commit, full_page_writes off)") +
      `; load average ${loadavg()}`,
  );
  if (values.skip !== "intake") await intake();
  if (values.skip !== "ingest") await ingest();
} finally {
  await cluster.stop();
}
