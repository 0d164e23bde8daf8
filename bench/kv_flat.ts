/**
 * The storage floor under the flat-cost targets (issue 19): Deno KV alone, writing intake's rows
 * as intake writes them, on an empty store against one holding `--stored` envelopes. No HTTP, no
 * segment files, no Sealpost code in the timed loop but the key builders and the row encoding.
 *
 * Each commit is one group-commit batch of `--batch` envelopes (32: what 64 connections form,
 * see RESULTS.md): per envelope an existence check and a head row under a random id
 * (`keys.submission`), and a queue row under the next sequence number (`keys.queue`), in the
 * compact encoding of src/store/kv/envelope_rows.ts. Rounds alternate between the two stores.
 * Printed per arm: envelopes/s, commit p50/p90/p99, and the CPU per envelope of Deno KV's SQLite
 * thread (`sw-*`, from /proc). A third arm runs the full store with a second SQLite connection
 * (a worker, node:sqlite) checkpointing the WAL every 20 ms (`PRAGMA wal_checkpoint(PASSIVE)`),
 * which takes the checkpoints off the committing thread: how much of the loss that buys.
 *
 * Usage: deno run -A bench/kv_flat.ts [--stored 1000000] [--rounds 3] [--commits 1500] [--batch 32]
 */
import { parseArgs } from "node:util";
import { keys } from "../src/store/kv/keys.ts";
import { intakeRows } from "./_intake_rows.ts";

const { values } = parseArgs({
  options: {
    stored: { type: "string", default: "1000000" },
    rounds: { type: "string", default: "3" },
    commits: { type: "string", default: "1500" },
    batch: { type: "string", default: "32" },
  },
});
const stored = Number(values.stored);
const rounds = Number(values.rounds);
const commits = Number(values.commits);
const batch = Number(values.batch);
const fingerprint = crypto.getRandomValues(new Uint8Array(32)).toHex();
const dir = await Deno.makeTempDir({ prefix: "sealpost-kv-flat-" });

const randomId = () => crypto.getRandomValues(new Uint8Array(16)).toHex();
let seq = Date.now() * 1000;

/** Fills `path` with `count` envelopes, 400 per atomic write (no checks: new ids pass them). */
async function prefill(path: string, count: number): Promise<number> {
  const started = performance.now();
  const kv = await Deno.openKv(path);
  for (let done = 0; done < count; done += 400) {
    const op = kv.atomic();
    for (let i = done; i < Math.min(count, done + 400); i++) {
      const id = randomId();
      const { head, queued } = intakeRows(id, fingerprint, { s: 1, o: i * 1024, n: 1024 });
      op.set(keys.submission(id), head).set(keys.queue(fingerprint, ++seq), queued);
    }
    if (!(await op.commit()).ok) throw new Error("prefill: a write failed");
  }
  kv.close();
  return (performance.now() - started) / 1000;
}

/** CPU µs by thread id of this process's SQLite threads (Deno KV names them `sw-<n>`). */
function sqliteCpuUs(): Map<string, number> {
  const byThread = new Map<string, number>();
  for (const task of Deno.readDirSync("/proc/self/task")) {
    const stat = Deno.readTextFileSync(`/proc/self/task/${task.name}/stat`);
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    if (!name.startsWith("sw-")) continue;
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    byThread.set(task.name, (Number(fields[11]) + Number(fields[12])) * 10_000); // 10 ms ticks
  }
  return byThread;
}

/** CPU µs the SQLite threads used since `before` (threads of closed stores that left: none). */
function sqliteCpuSince(before: Map<string, number>): number {
  let total = 0;
  for (const [thread, us] of sqliteCpuUs()) total += us - (before.get(thread) ?? 0);
  return total;
}

interface Round {
  perSecond: number;
  p50: number;
  p90: number;
  p99: number;
  cpuUs: number;
}

/** `commits` batches into `path`; with `checkpoint`, a worker checkpoints the WAL meanwhile. */
async function round(path: string, checkpoint: boolean): Promise<Round> {
  const kv = await Deno.openKv(path);
  const worker = checkpoint
    ? new Worker(new URL("./_kv_checkpointer.ts", import.meta.url), { type: "module" })
    : null;
  worker?.postMessage({ path, everyMs: 20 });
  const latencies: number[] = [];
  const cpu0 = sqliteCpuUs();
  const started = performance.now();
  for (let c = 0; c < commits; c++) {
    const op = kv.atomic();
    for (let j = 0; j < batch; j++) {
      const id = randomId();
      const key = keys.submission(id);
      const { head, queued } = intakeRows(id, fingerprint, { s: 1, o: j * 1024, n: 1024 });
      op.check({ key, versionstamp: null }).set(key, head)
        .set(keys.queue(fingerprint, ++seq), queued);
    }
    const t = performance.now();
    if (!(await op.commit()).ok) throw new Error("a check failed on a new random id");
    latencies.push(performance.now() - t);
  }
  const seconds = (performance.now() - started) / 1000;
  const cpuUs = sqliteCpuSince(cpu0) / (commits * batch);
  worker?.terminate();
  kv.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return {
    perSecond: commits * batch / seconds,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    cpuUs,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n: number, digits = 0) => n.toFixed(digits);

const empty = `${dir}/empty.sqlite3`;
const full = `${dir}/full.sqlite3`;
console.log(
  `Deno KV alone, intake's rows (check + head by random id + queue row), ${batch} envelopes a ` +
    `commit, ${commits} commits a round, ${rounds} rounds an arm`,
);
console.log(`prefill: ${stored} envelopes in ${fmt(await prefill(full, stored), 1)} s`);
const arms: Record<string, Round[]> = { empty: [], full: [], "full + checkpointer": [] };
try {
  for (let r = 0; r < rounds; r++) {
    // A fresh empty store each round: "empty" stays empty-ish (one round's envelopes).
    for (const file of [empty, `${empty}-wal`, `${empty}-shm`]) {
      await Deno.remove(file).catch(() => {});
    }
    arms.empty.push(await round(empty, false));
    arms.full.push(await round(full, false));
    arms["full + checkpointer"].push(await round(full, true));
    for (const [name, runs] of Object.entries(arms)) {
      const last = runs.at(-1)!;
      console.log(
        `round ${r + 1} ${name.padEnd(19)} ${
          fmt(last.perSecond).padStart(6)
        } envelopes/s, commit ` +
          `p50 ${fmt(last.p50, 2)} p90 ${fmt(last.p90, 2)} p99 ${fmt(last.p99, 2)} ms, SQLite ` +
          `thread ${fmt(last.cpuUs, 1)} µs/envelope`,
      );
    }
  }
  const summary = (name: string) => {
    const runs = arms[name];
    return {
      perSecond: median(runs.map((x) => x.perSecond)),
      p99: median(runs.map((x) => x.p99)),
      cpuUs: median(runs.map((x) => x.cpuUs)),
    };
  };
  const base = summary("empty");
  console.log("\nMedians (ratios against the empty store, same run):");
  for (const name of Object.keys(arms)) {
    const s = summary(name);
    console.log(
      `  ${name.padEnd(19)} ${fmt(s.perSecond).padStart(6)} envelopes/s (${
        fmt(s.perSecond / base.perSecond, 2)
      }x), commit p99 ${fmt(s.p99, 2)} ms (${fmt(s.p99 / base.p99, 2)}x), SQLite thread ${
        fmt(s.cpuUs, 1)
      } µs/envelope (${fmt(s.cpuUs / base.cpuUs, 2)}x)`,
    );
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
