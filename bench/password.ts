/**
 * Password hashing cost: milliseconds per Argon2id hash at today's parameters (m = 19456 KiB,
 * t = 2, p = 1) through src/people/password.ts (one dedicated worker), beside two baselines in
 * the same run: hash-wasm called on the main thread (the same WebAssembly, no worker hop) and
 * argon2-cffi (python3-argon2, native libargon2: the ceiling), when installed. Also the event
 * loop's longest stall while hashes run, through the worker and on the main thread: the reason
 * the worker exists.
 *
 * `deno run -A bench/password.ts [--hashes 20]`
 */
import { parseArgs } from "node:util";
import { argon2id } from "hash-wasm";
import {
  ARGON2_PARAMS,
  dummyVerify,
  hashPassword,
  stopPasswordHasher,
  verifyPassword,
} from "../src/people/password.ts";

const { values } = parseArgs({ args: Deno.args, options: { hashes: { type: "string" } } });
const N = Number(values.hashes ?? 20);
const PASSWORD = "correct horse battery staple";
const { m, t, p } = ARGON2_PARAMS;

/** Median ms of `fn` over N runs, and the event loop's longest stall (ms) meanwhile. */
async function measure(fn: () => Promise<unknown>): Promise<{ median: number; stall: number }> {
  let stall = 0;
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  const runs: number[] = [];
  for (let i = 0; i < N; i++) {
    const start = performance.now();
    await fn();
    runs.push(performance.now() - start);
    await new Promise((resolve) => setTimeout(resolve, 1)); // lets the ticker see a stall
  }
  clearInterval(tick);
  runs.sort((a, b) => a - b);
  return { median: runs[Math.floor(N / 2)], stall };
}

async function python(): Promise<number | null> {
  const script = `import time, argon2
ph = argon2.PasswordHasher(time_cost=${t}, memory_cost=${m}, parallelism=${p}, hash_len=32)
runs = []
for _ in range(${N}):
    s = time.perf_counter(); ph.hash("${PASSWORD}"); runs.append((time.perf_counter() - s) * 1000)
runs.sort(); print(runs[${Math.floor(N / 2)}])`;
  const out = await new Deno.Command("/usr/bin/python3", { args: ["-c", script] }).output()
    .catch(() => null);
  return out?.success ? Number(new TextDecoder().decode(out.stdout)) : null;
}

const salt = crypto.getRandomValues(new Uint8Array(16));
const direct = () =>
  argon2id({
    password: PASSWORD,
    salt,
    memorySize: m,
    iterations: t,
    parallelism: p,
    hashLength: 32,
    outputType: "binary",
  });
await hashPassword(PASSWORD); // starts the worker
const phc = await hashPassword(PASSWORD);
await direct(); // compiles the WebAssembly

const rows: [string, { median: number; stall: number } | null][] = [
  ["hashPassword (worker)", await measure(() => hashPassword(PASSWORD))],
  ["verifyPassword (worker)", await measure(() => verifyPassword(PASSWORD, phc))],
  ["dummyVerify (worker)", await measure(() => dummyVerify(PASSWORD))],
  ["baseline: hash-wasm on the main thread", await measure(direct)],
];
stopPasswordHasher();
const native = await python();

console.log(`Argon2id m=${m} KiB, t=${t}, p=${p}, 32-byte hash; ${N} hashes each, medians\n`);
console.log("| arm | ms per hash | longest event-loop stall, ms |");
console.log("| --- | ---: | ---: |");
for (const [name, r] of rows) {
  console.log(`| ${name} | ${r!.median.toFixed(1)} | ${r!.stall.toFixed(1)} |`);
}
console.log(
  native === null
    ? "| ceiling: argon2-cffi (native) | not installed | |"
    : `| ceiling: argon2-cffi (native) | ${native.toFixed(1)} | (other process) |`,
);
