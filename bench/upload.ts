/**
 * bench/upload: PUTs a 50 MB file through a pre-signed URL to `sealpost serve` running as a
 * child process, and in the same run times the baseline of the same work done by the
 * system's tools: `sha256sum` of the file plus a plain `cp` to the same disk.
 *
 * Prints MB/s of both, their ratio (target >= 0.7) and the server's peak RSS growth during
 * the upload (target under 32 MiB), sampled from /proc/<pid>/status.
 *
 * Usage: deno run -A bench/upload.ts [--runs 3] [--size 52428800] [--timeout 180]
 */
import { parseArgs } from "node:util";
import { spawnServer } from "../tests/_support/process.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "3" },
    size: { type: "string", default: String(52_428_800) },
    timeout: { type: "string", default: "180" },
  },
});
const runs = Number(values.runs);
const size = Number(values.size);
const MiB = 1024 * 1024;

// Bounded in time: a stuck server or tool fails the benchmark instead of hanging it.
const deadline = setTimeout(() => {
  console.error(`bench/upload: no result within ${values.timeout} s`);
  Deno.exit(1);
}, Number(values.timeout) * 1000);

async function writeRandomFile(path: string, bytes: number) {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const chunk = new Uint8Array(64 * 1024);
  for (let written = 0; written < bytes; written += chunk.length) {
    crypto.getRandomValues(chunk);
    await file.write(chunk.subarray(0, Math.min(chunk.length, bytes - written)));
  }
  file.close();
}

/** Makes the file's bytes new (so each run stores a new blob): rewrites its last 8 bytes. */
async function mutate(path: string, run: number) {
  const file = await Deno.open(path, { write: true });
  await file.seek(-8, Deno.SeekMode.End);
  const tail = new Uint8Array(8);
  new DataView(tail.buffer).setFloat64(0, run + Math.random());
  await file.write(tail);
  file.close();
}

async function timed(command: string, args: string[]): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" }).output();
  const ms = performance.now() - started;
  if (!out.success) throw new Error(`${command} failed: ${new TextDecoder().decode(out.stderr)}`);
  return { ms, stdout: new TextDecoder().decode(out.stdout) };
}

function rssKiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
  if (!match) throw new Error(`No ${field} in /proc/${pid}/status`);
  return Number(match[1]);
}

async function upload(
  url: string,
  userId: string,
  path: string,
  hash: string,
): Promise<{ ms: number; status: number }> {
  const slot = await fetch(`${url}/submissions/upload-slot`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      recipientUserId: userId,
      hash,
      mime: "application/octet-stream",
      sizeBytes: size,
    }),
  });
  if (!slot.ok) throw new Error(`upload-slot: HTTP ${slot.status} ${await slot.text()}`);
  const { url: putUrl } = await slot.json();
  const file = await Deno.open(path);
  const started = performance.now();
  const put = await fetch(putUrl, {
    method: "PUT",
    headers: { "content-type": "application/octet-stream", "content-length": String(size) },
    body: file.readable,
  });
  const text = await put.text();
  const ms = performance.now() - started;
  if (!put.ok) throw new Error(`PUT: HTTP ${put.status} ${text}`);
  return { ms, status: put.status };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mbps = (ms: number) => size / 1e6 / (ms / 1000);

const work = await Deno.makeTempDir({ prefix: "sealpost-bench-upload-" });
const server = await spawnServer(`${work}/data`);
const pid = server.child.pid;
try {
  const source = `${work}/file.bin`;
  await writeRandomFile(source, size);
  // Warm-up: one small upload, so the measured runs see a server past its first requests.
  const small = `${work}/small.bin`;
  await writeRandomFile(small, 1024);
  const smallHash = (await timed("sha256sum", [small])).stdout.slice(0, 64);
  const saved = size;
  {
    const slot = await fetch(`${server.url}/submissions/upload-slot`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ recipientUserId: server.credentials.userId, hash: smallHash }),
    });
    const { url } = await slot.json();
    const put = await fetch(url, { method: "PUT", body: await Deno.readFile(small) });
    if (!put.ok) throw new Error(`warm-up PUT: HTTP ${put.status} ${await put.text()}`);
  }
  void saved;

  const baseline: number[] = [];
  const uploads: number[] = [];
  const growthKiB: number[] = [];
  let hwmGrowthKiB = 0;
  for (let run = 0; run < runs; run++) {
    await mutate(source, run);
    const sum = await timed("sha256sum", [source]);
    const copy = await timed("cp", [source, `${work}/copy.bin`]);
    await Deno.remove(`${work}/copy.bin`);
    baseline.push(sum.ms + copy.ms);
    const hash = sum.stdout.slice(0, 64);

    const before = rssKiB(pid, "VmRSS");
    const hwmBefore = rssKiB(pid, "VmHWM");
    let peak = before;
    const sampler = setInterval(() => peak = Math.max(peak, rssKiB(pid, "VmRSS")), 5);
    const result = await upload(server.url, server.credentials.userId, source, hash);
    clearInterval(sampler);
    peak = Math.max(peak, rssKiB(pid, "VmRSS"));
    uploads.push(result.ms);
    growthKiB.push(peak - before);
    hwmGrowthKiB = Math.max(hwmGrowthKiB, rssKiB(pid, "VmHWM") - Math.max(hwmBefore, before));
    console.log(
      `run ${run + 1}: baseline sha256sum ${sum.ms.toFixed(0)} ms + cp ${copy.ms.toFixed(0)} ms` +
        ` = ${mbps(sum.ms + copy.ms).toFixed(0)} MB/s; PUT ${result.ms.toFixed(0)} ms` +
        ` = ${mbps(result.ms).toFixed(0)} MB/s (HTTP ${result.status});` +
        ` server RSS +${(growthKiB.at(-1)! / 1024).toFixed(1)} MiB`,
    );
  }
  const baseMbps = mbps(median(baseline));
  const putMbps = mbps(median(uploads));
  const ratio = putMbps / baseMbps;
  const peakMiB = Math.max(...growthKiB) / 1024;
  console.log(
    `\nfile: ${(size / MiB).toFixed(1)} MiB, ${runs} runs (medians)\n` +
      `baseline (sha256sum + cp): ${baseMbps.toFixed(0)} MB/s\n` +
      `upload (pre-signed PUT):   ${putMbps.toFixed(0)} MB/s\n` +
      `ratio: ${ratio.toFixed(2)} (target >= 0.7) ${ratio >= 0.7 ? "ok" : "MISSED"}\n` +
      `server peak RSS growth during upload: ${peakMiB.toFixed(1)} MiB sampled every 5 ms, ` +
      `VmHWM +${(hwmGrowthKiB / 1024).toFixed(1)} MiB (target < 32 MiB) ` +
      `${peakMiB < 32 && hwmGrowthKiB / 1024 < 32 ? "ok" : "MISSED"}`,
  );
  console.log(JSON.stringify({
    bytes: size,
    runs,
    baselineMBps: Number(baseMbps.toFixed(1)),
    uploadMBps: Number(putMbps.toFixed(1)),
    ratio: Number(ratio.toFixed(3)),
    peakRssGrowthMiB: Number(peakMiB.toFixed(1)),
    hwmGrowthMiB: Number((hwmGrowthKiB / 1024).toFixed(1)),
  }));
} finally {
  clearTimeout(deadline);
  await server.stop();
  await Deno.remove(work, { recursive: true });
}
