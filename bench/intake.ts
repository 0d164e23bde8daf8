/**
 * bench/intake: wrk posts 1 KiB-ciphertext envelopes at 64 connections to POST /submissions,
 * and in the same run to a baseline (bare Deno.serve + one KV atomic check+set per request).
 *
 * Usage: deno run -A bench/intake.ts [--seconds 10] [--connections 64] [--log]
 * (`--log` keeps the per-request JSON log on, written to /dev/null.)
 */
import { parseArgs } from "node:util";
import { publishForm, registerDatabase } from "../tests/_support/owner.ts";
import { freePort, spawnServer, waitFor } from "../tests/_support/process.ts";
import { fmt, wrk, type WrkResult } from "./_wrk.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "64" },
    log: { type: "boolean", default: false },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const script = new URL("./intake.lua", import.meta.url).pathname;

/** Starts `sealpost serve` in a fresh data dir with one database and a published form. */
async function startSealpost() {
  const data = await Deno.makeTempDir({ prefix: "sealpost-bench-" });
  const server = await spawnServer(data, { SEALPOST_SERVER_REQUEST_LOG: String(values.log) });
  const db = await registerDatabase(server);
  await publishForm(server, db, "bench");
  return { child: server.child, url: server.url, data, publicKey: db.publicKey };
}

async function startBaseline() {
  const data = await Deno.makeTempDir({ prefix: "sealpost-baseline-" });
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("./intake_baseline.ts", import.meta.url).pathname,
      String(port),
      `${data}/baseline.kv`,
    ],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  await waitFor(url);
  return { child, url, data };
}

async function stop(p: { child: Deno.ChildProcess; data: string }) {
  p.child.kill("SIGTERM");
  await p.child.status;
  await Deno.remove(p.data, { recursive: true });
}

function runTag(): string {
  return crypto.getRandomValues(new Uint8Array(4)).toHex();
}

const ciphertext = crypto.getRandomValues(new Uint8Array(1024)).toBase64();
const sealpost = await startSealpost();
const baseline = await startBaseline();
const env = (publicKey: string) => ({
  FORM_ID: "bench",
  RECIPIENT_PUBKEY: publicKey,
  CIPHERTEXT: ciphertext,
});
for (const [k, v] of Object.entries(env(sealpost.publicKey))) Deno.env.set(k, v);

const results: Record<string, WrkResult> = {};
try {
  // Warm both up, then measure: baseline, Sealpost, baseline, Sealpost; keep the best of each.
  for (const url of [baseline.url, `${sealpost.url}/submissions`]) {
    Deno.env.set("RUN_TAG", runTag());
    await wrk(url, script, { connections, seconds: 2 });
  }
  for (let round = 0; round < 2; round++) {
    for (
      const [name, url] of [["baseline", baseline.url], ["sealpost", `${sealpost.url}/submissions`]]
    ) {
      Deno.env.set("RUN_TAG", runTag());
      const r = await wrk(url, script, { connections, seconds });
      if (!results[name] || r.rps > results[name].rps) results[name] = r;
    }
  }
} finally {
  await stop(sealpost);
  await stop(baseline);
}

const s = results.sealpost;
const b = results.baseline;
console.log(
  `bench/intake: ${connections} connections, ${seconds} s per run, 1 KiB ciphertext, best of 2`,
);
console.log("| server | req/s | p50 ms | p99 ms | requests | non-2xx | socket errors |");
console.log("|---|---:|---:|---:|---:|---:|---:|");
for (
  const [name, r] of [["baseline (Deno.serve + 1 KV check+set)", b], [
    "sealpost POST /submissions",
    s,
  ]] as const
) {
  console.log(
    `| ${name} | ${fmt(r.rps, 0)} | ${fmt(r.p50ms, 2)} | ${
      fmt(r.p99ms, 2)
    } | ${r.requests} | ${r.non2xx} | ${r.errors} |`,
  );
}
console.log(
  `ratio sealpost/baseline: ${fmt(s.rps / b.rps, 2)} (target >= 1.0); p99 ${
    fmt(s.p99ms, 2)
  } ms (target < 25 ms)`,
);
