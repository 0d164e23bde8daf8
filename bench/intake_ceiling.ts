/**
 * Ceiling (b) for bench/intake: the same rows written straight into SQLite, no HTTP and no
 * Deno KV in between. The table is Deno KV's own (`kv`: blob key, `WITHOUT ROWID`, with its
 * expiration index; read from a Deno KV file with node:sqlite), keys in Deno KV's tuple
 * encoding (hex ids and fingerprints as bytes parts, as `keys` makes them), values in the
 * compact encoding of src/store/kv/envelope_rows.ts stored as Deno KV stores bytes
 * (`v_encoding` 3), WAL with `synchronous = FULL`. Each
 * transaction is one group-commit batch: the batch's ciphertexts appended to a segment file in
 * one write and fsynced (fdatasync) first, as Sealpost's segment files are; then per envelope
 * a point read of the head key (the existence check), the head row and the queue row pointing
 * into the segment, plus Deno KV's data-version bump. Values are serialized once, outside the
 * timed loop, so that only the file's and SQLite's work is timed.
 *
 * Usage: deno run -A bench/intake_ceiling.ts <db-path> <seconds> <batch> <random|mix>
 * Prints one JSON line: envelopes written, seconds, envelopes/s, p99 transaction ms.
 */
import { DatabaseSync } from "node:sqlite";
import { encodeHead, encodeQueued } from "../src/store/kv/envelope_rows.ts";

const [path, secondsArg, batchArg, mode] = Deno.args;
const seconds = Number(secondsArg);
const batch = Number(batchArg);

const db = new DatabaseSync(path);
const segment = Deno.openSync(`${path}.segment`, { create: true, write: true, append: true });
let segmentSize = 0;
db.exec(`
  PRAGMA journal_mode = WAL;
  PRAGMA synchronous = FULL;
  CREATE TABLE IF NOT EXISTS data_version (
    k integer primary key, version integer not null, seq integer not null default 0);
  INSERT OR IGNORE INTO data_version (k, version) VALUES (0, 0);
  CREATE TABLE IF NOT EXISTS kv (
    k blob primary key, v blob not null, v_encoding integer not null, version integer not null,
    seq integer not null default 0, expiration_ms integer not null default -1) without rowid;
  CREATE INDEX IF NOT EXISTS kv_expiration_ms_idx on kv (expiration_ms);
`);
const exists = db.prepare("SELECT version FROM kv WHERE k = ?");
const put = db.prepare(
  "INSERT OR REPLACE INTO kv (k, v, v_encoding, version, seq, expiration_ms) VALUES (?, ?, 3, ?, 0, -1)",
);
const bump = db.prepare("UPDATE data_version SET version = version + 1 WHERE k = 0");

const enc = new TextEncoder();
/** Deno KV's tuple encoding of string, bytes and number key parts. */
function key(...parts: (string | Uint8Array | number)[]): Uint8Array {
  const out: number[] = [];
  for (const part of parts) {
    if (typeof part === "string") {
      out.push(0x02, ...enc.encode(part), 0x00);
    } else if (part instanceof Uint8Array) {
      out.push(0x01);
      for (const byte of part) out.push(...(byte === 0 ? [0x00, 0xff] : [byte]));
      out.push(0x00);
    } else {
      const view = new DataView(new ArrayBuffer(8));
      view.setFloat64(0, part);
      const bytes = new Uint8Array(view.buffer);
      // Order-preserving float encoding: flip the sign bit of a positive number.
      bytes[0] ^= 0x80;
      out.push(0x21, ...bytes);
    }
  }
  return new Uint8Array(out);
}

const fingerprint = crypto.getRandomValues(new Uint8Array(32));
const now = new Date().toISOString();
const digest = crypto.getRandomValues(new Uint8Array(32)).toHex();
const sampleId = crypto.randomUUID().replaceAll("-", "");
// Values are built once per size, outside the timed loop: the ceiling times SQLite alone.
const headValue = encodeHead({
  id: sampleId,
  formId: "bench",
  fingerprint: fingerprint.toHex(),
  createdAt: now,
  version: 1,
  digest,
  latestDigest: digest,
});
const sizes = [1024, 8192, 65536].map((n) => {
  const ciphertext = crypto.getRandomValues(new Uint8Array(n));
  const queued = encodeQueued({
    submissionId: sampleId,
    version: 1,
    formId: "bench",
    recipientPubkey: null,
    submitterId: null,
    receivedAt: now,
    ref: { s: 1_000_000, o: 1_000_000_000, n },
  });
  return { queued, ciphertext };
});
const written: Uint8Array[] = [];
let version = 0;
let seq = Date.now() * 1000;
let envelopes = 0;
const txMs: number[] = [];
const started = performance.now();
const until = started + seconds * 1000;
while (performance.now() < until) {
  const t0 = performance.now();
  const rows: { headKey: Uint8Array; queued: Uint8Array }[] = [];
  const appended: Uint8Array[] = [];
  db.exec("BEGIN IMMEDIATE");
  bump.run();
  version++;
  for (let i = 0; i < batch; i++) {
    const retry = mode === "mix" && written.length > 0 && Math.random() < 0.1;
    const id = retry
      ? written[Math.floor(Math.random() * written.length)]
      : crypto.getRandomValues(new Uint8Array(16));
    const headKey = key("submissions", id);
    envelopes++;
    if (exists.get(headKey)) continue;
    const r = Math.random();
    const { queued, ciphertext } = sizes[mode === "mix" ? (r < 0.6 ? 0 : r < 0.9 ? 1 : 2) : 0];
    rows.push({ headKey, queued });
    appended.push(ciphertext);
    if (written.length < 4096) written.push(id);
    else written[Math.floor(Math.random() * written.length)] = id;
  }
  // The segment bytes are durable before the rows that point into them commit.
  const bytes = new Uint8Array(appended.reduce((sum, a) => sum + a.length, 0));
  appended.reduce((at, a) => (bytes.set(a, at), at + a.length), 0);
  for (let at = 0; at < bytes.length;) at += segment.writeSync(bytes.subarray(at));
  segment.syncDataSync();
  segmentSize += bytes.length;
  for (const { headKey, queued } of rows) {
    put.run(headKey, headValue, version);
    put.run(key("queue", fingerprint, ++seq), queued, version);
  }
  db.exec("COMMIT");
  txMs.push(performance.now() - t0);
}
const elapsed = (performance.now() - started) / 1000;
db.close();
segment.close();
txMs.sort((a, b) => a - b);
console.log(JSON.stringify({
  envelopes,
  seconds: elapsed,
  rate: envelopes / elapsed,
  p99TxMs: txMs[Math.floor(txMs.length * 0.99)] ?? 0,
  segmentBytes: segmentSize,
}));
