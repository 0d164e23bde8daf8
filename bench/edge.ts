/**
 * bench/edge: what the strict HTTP/1.1 parser of issue 26 costs. Runs, in the same run and
 * alternating, the same load against this tree and against a base commit (default: the last
 * one before the strict parser), checked out in a temporary git worktree:
 *
 * - intake: `sealpost serve` (fresh data dir, one database, a published form) and wrk posting
 *   1 KiB sealed envelopes under random ids (bench/intake.lua, MODE=random);
 * - serving: the serving layer alone, one JSON echo handler (bench/serving_server.ts `net`).
 *
 * Prints throughput, p99 and each server's CPU time per request (user + system, from
 * /proc/<pid>/stat), medians over the rounds.
 *
 * Usage: deno run -A bench/edge.ts [--base REF] [--seconds 10] [--rounds 3] [--connections 64]
 */
import { parseArgs } from "node:util";
import { freePort, spawnServer, waitFor } from "../tests/_support/process.ts";
import { publishForm, registerDatabase } from "../tests/_support/owner.ts";
import { fmt, wrk, type WrkResult } from "./_wrk.ts";

/** The last commit of main before the strict parser (issue 26). */
const BEFORE_STRICT_PARSER = "38b5674";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    base: { type: "string", default: BEFORE_STRICT_PARSER },
    seconds: { type: "string", default: "10" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "64" },
  },
});
const here = (path: string) => new URL(path, import.meta.url).pathname;
const root = here("../");
const run = { connections: Number(values.connections), seconds: Number(values.seconds) };

async function git(...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", { args, cwd: root, stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** User plus system CPU of a process so far, in µs (clock ticks of 10 ms). */
function cpuOf(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Arm {
  name: string;
  url: string;
  pid: number;
  script: string;
  /** Environment of its wrk script. */
  env: Record<string, string>;
  results: WrkResult[];
  cpuPerRequest: number[];
  stop(): Promise<unknown>;
}

/** Sealpost's intake from the checkout whose main.ts is `main`. */
async function intakeArm(name: string, main: string): Promise<Arm> {
  const data = await Deno.makeTempDir({ prefix: "sealpost-edge-" });
  const server = await spawnServer(data, {}, freePort(), main);
  const db = await registerDatabase(server);
  await publishForm(server, db, "bench");
  return {
    name,
    url: `${server.url}/submissions`,
    pid: server.child.pid,
    script: here("./intake.lua"),
    env: { FORM_ID: "bench", RECIPIENT_PUBKEY: db.publicKey, MODE: "random" },
    results: [],
    cpuPerRequest: [],
    stop: async () => {
      await server.stop();
      await Deno.remove(data, { recursive: true });
    },
  };
}

/** The serving layer alone from the checkout whose bench/serving_server.ts is `script`. */
async function servingArm(name: string, script: string): Promise<Arm> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, "net", String(port)],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}/`;
  await waitFor(url);
  return {
    name,
    url,
    pid: child.pid,
    script: here("./serving.lua"),
    env: {},
    results: [],
    cpuPerRequest: [],
    stop: () => {
      child.kill();
      return child.status;
    },
  };
}

/** One wrk run against `arm`, recorded unless it is the short warm-up. */
async function measure(arm: Arm, warmUp = false): Promise<void> {
  for (const [k, v] of Object.entries(arm.env)) Deno.env.set(k, v);
  Deno.env.set("RUN_TAG", crypto.getRandomValues(new Uint8Array(4)).toHex());
  const before = cpuOf(arm.pid);
  const result = await wrk(arm.url, arm.script, warmUp ? { ...run, seconds: 2 } : run);
  if (warmUp) return;
  arm.cpuPerRequest.push((cpuOf(arm.pid) - before) / result.requests);
  arm.results.push(result);
}

const base = await Deno.makeTempDir({ prefix: "sealpost-edge-base-" });
await git("worktree", "add", "--detach", base, values.base!);
const arms: Arm[] = [];
try {
  Deno.env.set("CT_1K", crypto.getRandomValues(new Uint8Array(1024)).toBase64());
  Deno.env.set("CT_8K", crypto.getRandomValues(new Uint8Array(8192)).toBase64());
  Deno.env.set("CT_64K", crypto.getRandomValues(new Uint8Array(65536)).toBase64());
  arms.push(await intakeArm(`intake, base ${values.base}`, `${base}/main.ts`));
  arms.push(await intakeArm("intake, this tree", here("../main.ts")));
  arms.push(await servingArm(`serving, base ${values.base}`, `${base}/bench/serving_server.ts`));
  arms.push(await servingArm("serving, this tree", here("./serving_server.ts")));
  for (const arm of arms) await measure(arm, true);
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const arm of arms) await measure(arm);
  }
  console.log(
    `bench/edge: ${run.connections} connections, ${run.seconds} s a run, ${values.rounds} ` +
      `alternating rounds, medians; load average ${Deno.loadavg().map((n) => fmt(n, 2))}`,
  );
  console.log("| arm | req/s | p99 ms | CPU µs/request | failed |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const arm of arms) {
    const failed = arm.results.reduce((n, r) => n + r.non2xx + r.errors, 0);
    console.log(
      `| ${arm.name} | ${fmt(median(arm.results.map((r) => r.rps)), 0)} | ` +
        `${fmt(median(arm.results.map((r) => r.p99ms)))} | ${
          fmt(median(arm.cpuPerRequest), 0)
        } | ${failed} |`,
    );
  }
  for (const [a, b] of [[0, 1], [2, 3]]) {
    const ratio = median(arms[b].results.map((r) => r.rps)) /
      median(arms[a].results.map((r) => r.rps));
    console.log(`${arms[b].name} / ${arms[a].name}: ${fmt(ratio, 3)}x throughput`);
  }
} finally {
  for (const arm of arms) await arm.stop().catch(() => {});
  await git("worktree", "remove", "--force", base).catch(() => {});
}
