/**
 * bench/upload_s3: the same 50 MB PUT through a pre-signed URL on both blob backends, in one
 * run, alternating: `fs` (the bytes stream through Sealpost, which hashes, fsyncs and renames
 * them) and `s3` (the bytes go to a Ceph radosgw on loopback, which checks the signed
 * Content-Type, Content-Length and SHA-256 itself; BlueStore on a sparse file). The client is
 * curl (`curl -T`), sending what Sealpost's SDK sends: Content-Type and x-amz-content-sha256.
 * Each run changes the file's last bytes, so every upload stores a new blob.
 *
 * Starts radosgw when it is not running (tests/_support/services/) and prints the start time.
 *
 * Usage: deno run -A bench/upload_s3.ts [--runs 5] [--size 52428800] [--timeout 300]
 */
import { createHash } from "node:crypto";
import { parseArgs } from "node:util";
import { type Backend, BACKENDS, radosgw, startOn } from "../tests/blobs/_backends.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "5" },
    size: { type: "string", default: String(52_428_800) },
    timeout: { type: "string", default: "300" },
  },
});
const runs = Number(values.runs);
const size = Number(values.size);

const deadline = setTimeout(() => {
  console.error(`bench/upload_s3: no result within ${values.timeout} s`);
  Deno.exit(1);
}, Number(values.timeout) * 1000);

const started = performance.now();
const gateway = await radosgw();
console.log(
  gateway.timings
    ? `radosgw started in ${((performance.now() - started) / 1000).toFixed(1)} s ` +
      `(${Object.entries(gateway.timings).map(([k, v]) => `${k} ${v} s`).join(", ")})`
    : "radosgw: already running",
);

const work = await Deno.makeTempDir({ prefix: "sealpost-bench-upload-s3-" });
const source = `${work}/file.bin`;
const bytes = new Uint8Array(size);
for (let at = 0; at < size; at += 65_536) crypto.getRandomValues(bytes.subarray(at, at + 65_536));

/** PUTs the file with curl; returns curl's transfer time in ms. */
async function put(url: string, hash: string): Promise<number> {
  const out = await new Deno.Command("curl", {
    args: [
      "-sS",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code} %{time_total}",
      "-H",
      "Content-Type: application/octet-stream",
      "-H",
      `x-amz-content-sha256: ${hash}`,
      "-T",
      source,
      url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const [status, seconds] = new TextDecoder().decode(out.stdout).trim().split(" ");
  if (!status.startsWith("2")) throw new Error(`PUT answered HTTP ${status}`);
  return Number(seconds) * 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mbps = (ms: number) => size / 1e6 / (ms / 1000);
const instances = await Promise.all(BACKENDS.map((b) => startOn(b)));
const times: Record<Backend, number[]> = { fs: [], s3: [] };
try {
  for (let i = 0; i < runs; i++) {
    for (const [n, backend] of BACKENDS.entries()) {
      crypto.getRandomValues(bytes.subarray(size - 8));
      await Deno.writeFile(source, bytes);
      const hash = createHash("sha256").update(bytes).digest("hex");
      const inst = instances[n];
      const slot = await fetch(`${inst.url}/submissions/upload-slot`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          recipientUserId: inst.credentials.userId,
          hash,
          mime: "application/octet-stream",
          sizeBytes: size,
        }),
      });
      const ms = await put((await slot.json()).url, hash);
      times[backend].push(ms);
      console.log(`run ${i + 1} ${backend}: ${ms.toFixed(0)} ms = ${mbps(ms).toFixed(0)} MB/s`);
    }
  }
  const fs = mbps(median(times.fs));
  const s3 = mbps(median(times.s3));
  console.log(
    `\nfile: ${(size / 1024 / 1024).toFixed(1)} MiB; medians of ${runs} runs each\n` +
      `fs (through Sealpost):       ${fs.toFixed(0)} MB/s\n` +
      `s3 (radosgw, direct):        ${s3.toFixed(0)} MB/s\n` +
      `ratio s3/fs: ${(s3 / fs).toFixed(2)}`,
  );
  console.log(
    JSON.stringify({ bytes: size, runs, fsMBps: +fs.toFixed(1), s3MBps: +s3.toFixed(1) }),
  );
} finally {
  clearTimeout(deadline);
  for (const inst of instances) await inst.close();
  await Deno.remove(work, { recursive: true });
}
