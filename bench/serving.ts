/**
 * bench/serving: the serving layer alone. wrk posts a 1.4 KiB JSON body to one echo handler
 * served by Sealpost's HTTP/1.1 layer (src/net, default limits) and, in the same run, by
 * `Deno.serve` (the baseline), alternating, best of the rounds. Also prints each server's CPU
 * time per request (user and system, from /proc/<pid>/stat over all measured rounds), which
 * other load on the machine disturbs far less than throughput.
 *
 * Usage: deno run -A bench/serving.ts [--seconds 10] [--connections 64] [--rounds 2]
 */
import { parseArgs } from "node:util";
import { freePort, waitFor } from "../tests/_support/process.ts";
import { fmt, wrk, type WrkResult } from "./_wrk.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "64" },
    rounds: { type: "string", default: "2" },
  },
});
const script = new URL("./serving.lua", import.meta.url).pathname;
const serverScript = new URL("./serving_server.ts", import.meta.url).pathname;

async function start(layer: "deno" | "net") {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", serverScript, layer, String(port)],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}/`;
  await waitFor(url);
  return { child, url };
}

const servers = { deno: await start("deno"), net: await start("net") };
const results: Partial<Record<"deno" | "net", WrkResult>> = {};
const cpu = { deno: { user: 0, sys: 0, requests: 0 }, net: { user: 0, sys: 0, requests: 0 } };

/** User and system CPU of a process so far, in µs (clock ticks of 10 ms). */
function cpuOf(pid: number): { user: number; sys: number } {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  return { user: Number(fields[11]) * 10_000, sys: Number(fields[12]) * 10_000 };
}
const run = { connections: Number(values.connections), seconds: Number(values.seconds) };
try {
  for (const s of Object.values(servers)) await wrk(s.url, script, { ...run, seconds: 2 });
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const name of ["deno", "net"] as const) {
      const before = cpuOf(servers[name].child.pid);
      const r = await wrk(servers[name].url, script, run);
      const after = cpuOf(servers[name].child.pid);
      cpu[name].user += after.user - before.user;
      cpu[name].sys += after.sys - before.sys;
      cpu[name].requests += r.requests;
      if (!results[name] || r.rps > results[name]!.rps) results[name] = r;
    }
  }
} finally {
  for (const s of Object.values(servers)) {
    s.child.kill("SIGTERM");
    await s.child.status;
  }
}

const d = results.deno!;
const n = results.net!;
console.log(
  `bench/serving: ${run.connections} connections, ${run.seconds} s per run, ` +
    `best of ${values.rounds}`,
);
console.log("| server | req/s | p50 ms | p99 ms | requests | non-2xx | socket errors |");
console.log("|---|---:|---:|---:|---:|---:|---:|");
for (const [name, r] of [["baseline Deno.serve", d], ["src/net serveHttp", n]] as const) {
  console.log(
    `| ${name} | ${fmt(r.rps, 0)} | ${fmt(r.p50ms, 2)} | ${fmt(r.p99ms, 2)} | ${r.requests} | ` +
      `${r.non2xx} | ${r.errors} |`,
  );
}
console.log(`ratio src/net / Deno.serve: ${fmt(n.rps / d.rps, 2)}`);
for (const [name, c] of [["Deno.serve", cpu.deno], ["src/net", cpu.net]] as const) {
  console.log(
    `CPU per request, ${name}: ${fmt(c.user / c.requests, 1)} µs user + ` +
      `${fmt(c.sys / c.requests, 1)} µs system`,
  );
}
