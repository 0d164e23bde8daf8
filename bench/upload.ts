/**
 * bench/upload: PUTs a 50 MB file through a pre-signed URL to `sealpost serve` running as a
 * child process, and in the same run times the baseline of the same work done by the
 * system's tools: `openssl dgst -sha256` of the file (OpenSSL's SHA-256, with SHA-NI where the
 * CPU has it), a `cp` to the same disk and an fsync of the copy (`sync <file>`): what a
 * durable, hash-checked upload must at least do. The three tools run as three processes; the
 * time of starting one (the fastest start of `true` over the run: a start slowed by other load
 * is not taken off) is taken off each baseline three times, so it times the tools' work.
 *
 * The client is curl (`curl -T`, the documented way to upload; Deno's own fetch streams
 * request bodies across processes at about 50 MB/s, which would measure the client). Each run
 * changes the file's last bytes, so every upload stores a new blob.
 *
 * Prints MB/s of both, their ratio (target >= 0.8) and the server's peak RSS growth during
 * the uploads (target under 32 MiB), sampled from /proc/<pid>/status (VmRSS every 5 ms, and
 * VmHWM).
 *
 * Usage: deno run -A bench/upload.ts [--runs 5] [--size 52428800] [--timeout 180]
 */
import { parseArgs } from "node:util";
import { spawnServer } from "../tests/_support/process.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "5" },
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
    const part = chunk.subarray(0, Math.min(chunk.length, bytes - written));
    for (let n = 0; n < part.length;) n += await file.write(part.subarray(n));
  }
  file.close();
}

/** Makes the file's bytes new: rewrites its last 8 bytes. */
async function mutate(path: string) {
  const file = await Deno.open(path, { write: true });
  await file.seek(-8, Deno.SeekMode.End);
  await file.write(crypto.getRandomValues(new Uint8Array(8)));
  file.close();
}

async function run(command: string, args: string[]): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" }).output();
  const ms = performance.now() - started;
  if (!out.success) {
    throw new Error(`${command} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return { ms, stdout: new TextDecoder().decode(out.stdout) };
}

function statusKiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
  if (!match) throw new Error(`No ${field} in /proc/${pid}/status`);
  return Number(match[1]);
}

async function slotFor(url: string, userId: string, hash: string): Promise<string> {
  const response = await fetch(`${url}/submissions/upload-slot`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      recipientUserId: userId,
      hash,
      mime: "application/octet-stream",
      sizeBytes: size,
    }),
  });
  if (!response.ok) {
    throw new Error(`upload-slot: HTTP ${response.status} ${await response.text()}`);
  }
  return (await response.json()).url;
}

/** PUTs the file with curl; returns the transfer time curl measured, in ms. */
async function put(url: string, path: string, chunked: boolean): Promise<number> {
  const { stdout } = await run("curl", [
    "-sS",
    "-o",
    "/dev/null",
    "-w",
    "%{http_code} %{time_total}",
    "-H",
    "Content-Type: application/octet-stream",
    ...(chunked ? ["-H", "Transfer-Encoding: chunked"] : []),
    "-T",
    path,
    url,
  ]);
  const [status, seconds] = stdout.trim().split(" ");
  if (status !== "201") throw new Error(`PUT answered HTTP ${status}`);
  return Number(seconds) * 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mbps = (ms: number) => size / 1e6 / (ms / 1000);

await run("curl", ["--version"]).catch(() => {
  console.error("bench/upload needs curl on PATH");
  Deno.exit(2);
});
const work = await Deno.makeTempDir({ prefix: "sealpost-bench-upload-" });
const server = await spawnServer(`${work}/data`);
const pid = server.child.pid;
const { userId } = server.credentials;
try {
  const source = `${work}/file.bin`;
  await writeRandomFile(source, size);
  const rssAtStart = statusKiB(pid, "VmRSS");
  const hwmAtStart = statusKiB(pid, "VmHWM");
  let peakRss = rssAtStart;
  const sampler = setInterval(() => peakRss = Math.max(peakRss, statusKiB(pid, "VmRSS")), 5);

  const tools: number[] = [];
  const starts: number[] = [];
  const uploads: number[] = [];
  const chunkedUploads: number[] = [];
  for (let i = 0; i < runs; i++) {
    for (const chunked of [false, true]) {
      await mutate(source);
      const sum = await run("openssl", ["dgst", "-sha256", "-r", source]);
      const copy = await run("cp", [source, `${work}/copy.bin`]);
      const flush = await run("sync", [`${work}/copy.bin`]);
      await Deno.remove(`${work}/copy.bin`);
      starts.push((await run("true", [])).ms);
      const hash = sum.stdout.slice(0, 64);
      copy.ms += flush.ms;
      const ms = await put(await slotFor(server.url, userId, hash), source, chunked);
      (chunked ? chunkedUploads : uploads).push(ms);
      tools.push(sum.ms + copy.ms);
      console.log(
        `run ${i + 1}${chunked ? " chunked" : "        "}: openssl ${sum.ms.toFixed(0)} ms` +
          ` + cp and fsync ${copy.ms.toFixed(0)} ms = ${mbps(sum.ms + copy.ms).toFixed(0)} MB/s;` +
          ` PUT ${ms.toFixed(0)} ms = ${mbps(ms).toFixed(0)} MB/s`,
      );
    }
  }
  clearInterval(sampler);
  const rssGrowthMiB = (Math.max(peakRss, statusKiB(pid, "VmRSS")) - rssAtStart) / 1024;
  const hwmGrowthMiB = (statusKiB(pid, "VmHWM") - Math.max(hwmAtStart, rssAtStart)) / 1024;
  const start = Math.min(...starts);
  const baseline = tools.map((ms) => Math.max(1, ms - 3 * start));
  const baseMbps = mbps(median(baseline));
  const putMbps = mbps(median(uploads));
  const chunkedMbps = mbps(median(chunkedUploads));
  const ratio = putMbps / baseMbps;
  const growth = Math.max(rssGrowthMiB, hwmGrowthMiB);
  console.log(
    `\nfile: ${(size / MiB).toFixed(1)} MiB; medians of ${runs} runs each\n` +
      `baseline (openssl + cp + fsync):    ${baseMbps.toFixed(0)} MB/s ` +
      `(3 process starts of ${start.toFixed(1)} ms taken off each)\n` +
      `upload (pre-signed PUT, curl -T):   ${putMbps.toFixed(0)} MB/s\n` +
      `upload (same, chunked encoding):    ${chunkedMbps.toFixed(0)} MB/s\n` +
      `ratio: ${ratio.toFixed(2)} (target >= 0.8) ${ratio >= 0.8 ? "ok" : "MISSED"}\n` +
      `server RSS growth over all uploads: peak VmRSS +${rssGrowthMiB.toFixed(1)} MiB, ` +
      `VmHWM +${hwmGrowthMiB.toFixed(1)} MiB (target < 32 MiB) ${growth < 32 ? "ok" : "MISSED"}`,
  );
  console.log(JSON.stringify({
    bytes: size,
    runs,
    baselineMBps: Number(baseMbps.toFixed(1)),
    uploadMBps: Number(putMbps.toFixed(1)),
    chunkedUploadMBps: Number(chunkedMbps.toFixed(1)),
    ratio: Number(ratio.toFixed(3)),
    peakRssGrowthMiB: Number(rssGrowthMiB.toFixed(1)),
    hwmGrowthMiB: Number(hwmGrowthMiB.toFixed(1)),
  }));
} finally {
  clearTimeout(deadline);
  await server.stop();
  await Deno.remove(work, { recursive: true });
}
