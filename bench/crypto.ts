/**
 * Sealed-box throughput: seal and open of 1 KiB and 64 KiB messages, in ops/s, for the SDK's
 * crypto core (WebCrypto X25519 path and pure @noble path), libsodium-wrappers (WebAssembly)
 * and python3-nacl (native libsodium, the ceiling), one after another in one run. Prints a
 * table and the SDK / libsodium-wrappers ratios; exits 1 if a ratio is below the 0.5 target.
 *
 * `deno run -A bench/crypto.ts [--seconds 1] [--rounds 5]` (seconds per measurement, split into
 * rounds that interleave the implementations).
 */
import { parseArgs } from "node:util";
import sodium from "libsodium-wrappers";
import { generateKeyPair } from "../src/crypto/keys.ts";
import { open, seal, type X25519Impl, x25519Impl } from "../src/crypto/sealed_box.ts";
import { Nacl } from "../tests/_support/nacl.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { seconds: { type: "string" }, rounds: { type: "string" } },
});
const SECONDS = Number(values.seconds ?? 1);
const ROUNDS = Number(values.rounds ?? 5);
const SLICE = SECONDS / ROUNDS;
const SIZES = [1024, 65_536];
const TARGET = 0.5;

type Op = "seal" | "open";
type Rates = { seal: number; open: number };
type Ops = Record<Op, () => unknown>;

/** Ops/s of `fn` over `seconds`. */
async function rate(fn: () => unknown, seconds: number): Promise<number> {
  let n = 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  while (performance.now() < until) {
    await fn();
    n++;
  }
  return n / ((performance.now() - start) / 1000);
}

function ours(x25519: X25519Impl, size: number): Promise<Ops> {
  const { publicKey, secretKey } = generateKeyPair();
  const message = new Uint8Array(size);
  return seal(message, publicKey, { x25519 }).then((sealed) => ({
    seal: () => seal(message, publicKey, { x25519 }),
    open: () => open(sealed, publicKey, secretKey, { x25519 }),
  }));
}

async function wrappers(size: number): Promise<Ops> {
  await sodium.ready;
  const { publicKey, privateKey } = sodium.crypto_box_keypair();
  const message = new Uint8Array(size);
  const sealed = sodium.crypto_box_seal(message, publicKey);
  return {
    seal: () => sodium.crypto_box_seal(message, publicKey),
    open: () => sodium.crypto_box_seal_open(sealed, publicKey, privateKey),
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const auto = await x25519Impl();
const names = [
  `sealpost, WebCrypto X25519${auto === "webcrypto" ? " (default here)" : ""}`,
  `sealpost, pure @noble X25519${auto === "noble" ? " (default here)" : ""}`,
  "libsodium-wrappers 0.8.4 (wasm)",
  "python3-nacl (native libsodium)",
];
// samples[row][size][op]: one ops/s figure per round. Rounds interleave the implementations so
// that background load on the machine hits them alike; the table shows each median.
const samples = names.map(() =>
  Object.fromEntries(SIZES.map((s) => [s, { seal: [] as number[], open: [] as number[] }]))
);
const nacl = new Nacl();
try {
  for (const size of SIZES) {
    const js = [await ours("webcrypto", size), await ours("noble", size), await wrappers(size)];
    for (const ops of js) for (const op of ["seal", "open"] as const) await rate(ops[op], 0.15);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [row, ops] of js.entries()) {
        for (const op of ["seal", "open"] as const) {
          samples[row][size][op].push(await rate(ops[op], SLICE));
        }
      }
      const native = await nacl.bench(size, SLICE);
      samples[3][size].seal.push(native.seal);
      samples[3][size].open.push(native.open);
    }
  }
} finally {
  await nacl.close();
}
const rows: [string, Record<number, Rates>][] = names.map((name, row) => [
  name,
  Object.fromEntries(SIZES.map((size) => [size, {
    seal: median(samples[row][size].seal),
    open: median(samples[row][size].open),
  }])),
]);

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const kib = (size: number) => `${size / 1024} KiB`;
const header = ["implementation", ...SIZES.flatMap((s) => [`seal ${kib(s)}`, `open ${kib(s)}`])];
const table = rows.map((
  [name, r],
) => [name, ...SIZES.flatMap((s) => [fmt(r[s].seal), fmt(r[s].open)])]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
const line = (cells: string[]) =>
  `| ${cells.map((c, i) => i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])).join(" | ")} |`;

console.log(
  `Sealed box ops/s: median of ${ROUNDS} interleaved rounds of ${SLICE.toFixed(2)} s, ` +
    `Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores\n`,
);
console.log(line(header));
console.log(
  `|${
    widths.map((w, i) => (i === 0 ? "-" : "") + "-".repeat(w + 1) + (i === 0 ? "" : ":")).join("|")
  }|`,
);
for (const row of table) console.log(line(row));

console.log(`\nRatios to libsodium-wrappers (target >= ${TARGET}):\n`);
let missed = 0;
const sodiumRow = rows[2][1];
for (const [index, label] of [[0, "WebCrypto"], [1, "pure"]] as const) {
  for (const size of SIZES) {
    for (const op of ["seal", "open"] as const) {
      const ratio = rows[index][1][size][op] / sodiumRow[size][op];
      const isDefault = (index === 0) === (auto === "webcrypto");
      const verdict = !isDefault ? "" : ratio >= TARGET ? "  ok" : "  BELOW TARGET";
      if (isDefault && ratio < TARGET) missed++;
      console.log(
        `  ${label.padEnd(9)} ${op} ${kib(size).padStart(6)}: ${ratio.toFixed(2)}x${verdict}`,
      );
    }
  }
}
const ceiling = rows[3][1];
console.log(`\nNative libsodium ceiling, default SDK path as a share of it:`);
for (const size of SIZES) {
  for (const op of ["seal", "open"] as const) {
    const ratio = rows[auto === "webcrypto" ? 0 : 1][1][size][op] / ceiling[size][op];
    console.log(`  ${op} ${kib(size).padStart(6)}: ${ratio.toFixed(2)}x`);
  }
}
if (missed > 0) Deno.exit(1);
