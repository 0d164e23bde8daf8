/**
 * bench/files: a 50 MB attachment end to end, encrypted (form `files: "encrypted"`) beside
 * plain (the specification's flow) in the same run, against `sealpost serve` as a child
 * process.
 *
 * - upload: the SDK's `uploadFile` (plain: hash + slot + PUT; encrypted: pad + age-encrypt +
 *   hash + slot + PUT), in this process;
 * - download: a fresh read URL from the owner route
 *   `GET /vault/forms/{formId}/records/{recordId}/files/doc`, then the whole body read
 *   (plain: the relay's pre-signed URL; encrypted: the vault's link, which decrypts while it
 *   streams).
 *
 * Prints MB/s (plaintext bytes per second) of each, the encrypted/plain ratios (target
 * >= 0.5) and the server's peak RSS growth during the downloads (target: flat, under 32 MiB
 * for a 50 MB file), sampled from /proc/<pid>/status every 5 ms.
 *
 * Usage: deno run -A bench/files.ts [--runs 3] [--size 50000000] [--timeout 300]
 */
import { parseArgs } from "node:util";
import { fetchManifest, submitForm, uploadFile } from "../src/sdk/mod.ts";
import type { Manifest } from "../src/forms/manifest.ts";
import { spawnServer } from "../tests/_support/process.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "3" },
    size: { type: "string", default: "50000000" },
    timeout: { type: "string", default: "300" },
  },
});
const runs = Number(values.runs);
const size = Number(values.size);

// Bounded in time: a stuck server fails the benchmark instead of hanging it.
const deadline = setTimeout(() => {
  console.error(`bench/files: no result within ${values.timeout} s`);
  Deno.exit(1);
}, Number(values.timeout) * 1000);

function rssKiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]);
}

async function api(base: string, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
  return json;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mbps = (ms: number) => size / 1e6 / (ms / 1000);

const work = await Deno.makeTempDir({ prefix: "sealpost-bench-files-" });
const server = await spawnServer(`${work}/data`);
const pid = server.child.pid;
const { ownerToken: token } = server.credentials;
try {
  const db = await api(server.url, token, "POST", "/vault/databases", { name: "bench" });
  const fields = [{ id: "doc", label: "Document", kind: "attachment" }];
  const { fingerprint: pin } = await api(server.url, token, "GET", "/vault/manifest-key");
  const manifests: Record<"plain" | "encrypted", Manifest> = {} as never;
  for (const files of ["plain", "encrypted"] as const) {
    const form = await api(server.url, token, "POST", "/vault/forms", {
      databaseId: db.id,
      title: files,
      fields,
      files,
      publish: true,
    });
    manifests[files] = await fetchManifest(form.formId, { relayUrl: server.url, pin });
  }
  const data = crypto.getRandomValues(new Uint8Array(65_536));
  const file = new Uint8Array(size).map((_, i) => data[i % data.length]);

  /** Uploads, submits and downloads the file once; the two times and the RSS growth. */
  const roundTrip = async (manifest: Manifest) => {
    file.set(crypto.getRandomValues(new Uint8Array(8)), size - 8); // new bytes every run
    let started = performance.now();
    const ref = await uploadFile(manifest, {
      data: file,
      mime: "application/pdf",
      fileName: "big.pdf",
    });
    const up = performance.now() - started;
    const receipt = await submitForm(manifest, { doc: ref });
    const recordPath = `/vault/forms/${manifest.formId}/records/${receipt.submissionId}`;
    for (let tries = 0;; tries++) {
      const r = await fetch(server.url + recordPath, {
        headers: { authorization: `Bearer ${token}` },
      });
      await r.body?.cancel();
      if (r.ok) break;
      if (tries > 600) throw new Error("The record never appeared");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { url } = await api(server.url, token, "GET", `${recordPath}/files/doc`);
    const before = rssKiB(pid);
    let peak = before;
    const sampler = setInterval(() => peak = Math.max(peak, rssKiB(pid)), 5);
    started = performance.now();
    const response = await fetch(url);
    let read = 0;
    for await (const chunk of response.body!) read += chunk.length;
    const down = performance.now() - started;
    clearInterval(sampler);
    if (read !== size) throw new Error(`Download: ${read} bytes, not ${size}`);
    return { up, down, growthKiB: peak - before };
  };

  // One unmeasured round of each first: the server's first large transfer grows its heap once.
  for (const mode of ["plain", "encrypted"] as const) await roundTrip(manifests[mode]);
  const times = {
    plain: { up: [] as number[], down: [] as number[] },
    encrypted: { up: [] as number[], down: [] as number[] },
  };
  let peakGrowthKiB = 0;
  const orders = [["plain", "encrypted"], ["encrypted", "plain"]] as const;
  for (let i = 0; i < runs; i++) {
    for (const mode of orders[i % 2]) {
      const { up, down, growthKiB } = await roundTrip(manifests[mode]);
      times[mode].up.push(up);
      times[mode].down.push(down);
      if (mode === "encrypted") peakGrowthKiB = Math.max(peakGrowthKiB, growthKiB);
      console.log(
        `run ${i + 1} ${mode.padEnd(9)}: upload ${up.toFixed(0)} ms, download ${
          down.toFixed(0)
        } ms (server RSS +${(growthKiB / 1024).toFixed(1)} MiB)`,
      );
    }
  }
  const up = { plain: mbps(median(times.plain.up)), encrypted: mbps(median(times.encrypted.up)) };
  const down = {
    plain: mbps(median(times.plain.down)),
    encrypted: mbps(median(times.encrypted.down)),
  };
  const upRatio = up.encrypted / up.plain;
  const downRatio = down.encrypted / down.plain;
  const growthMiB = peakGrowthKiB / 1024;
  console.log(
    `\nfile: ${size} bytes; medians of ${runs} runs each\n` +
      `upload   plain ${up.plain.toFixed(0)} MB/s, encrypt+upload ${
        up.encrypted.toFixed(0)
      } MB/s: ` +
      `ratio ${upRatio.toFixed(2)} (target >= 0.5) ${upRatio >= 0.5 ? "ok" : "MISSED"}\n` +
      `download plain ${down.plain.toFixed(0)} MB/s, download+decrypt ${
        down.encrypted.toFixed(0)
      } MB/s: ratio ${downRatio.toFixed(2)} (target >= 0.5) ${
        downRatio >= 0.5 ? "ok" : "MISSED"
      }\n` +
      `server RSS growth while decrypting: peak +${growthMiB.toFixed(1)} MiB ` +
      `(target: flat, < 32 MiB) ${growthMiB < 32 ? "ok" : "MISSED"}`,
  );
  console.log(JSON.stringify({
    bytes: size,
    runs,
    uploadMBps: { plain: Number(up.plain.toFixed(1)), encrypted: Number(up.encrypted.toFixed(1)) },
    downloadMBps: {
      plain: Number(down.plain.toFixed(1)),
      encrypted: Number(down.encrypted.toFixed(1)),
    },
    uploadRatio: Number(upRatio.toFixed(3)),
    downloadRatio: Number(downRatio.toFixed(3)),
    decryptRssGrowthMiB: Number(growthMiB.toFixed(1)),
  }));
} finally {
  clearTimeout(deadline);
  await server.stop();
  await Deno.remove(work, { recursive: true });
}
