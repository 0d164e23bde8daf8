/**
 * bench/console: the owner console on a form holding 100,000 records (a server in a child
 * process). Prints the records page's first-page time beside the owner API's first page of the
 * same form, and the server's memory (RSS) during a streamed CSV export of every record beside
 * the same export through the owner API (pages of 500, as `records export` reads them).
 *
 * The records are written straight into the store in the layout the vault writes (head row
 * with inline values, time index, count, per-day counts), spread over 60 days, so the set-up
 * takes seconds instead of an ingest run.
 *
 * Usage: deno run -A bench/console.ts [--count 100000] [--rounds 20]
 */
import { parseArgs } from "node:util";
import { openStore } from "../src/store/kv/file.ts";
import { vaultKeys } from "../src/store/kv/keys.ts";
import type { VaultRecordRow } from "../src/store/kv/record_writes.ts";
import { savedAtOf } from "../src/store/ports/records.ts";
import { ConsoleClient, firstPersonOf } from "../tests/console/_client.ts";
import { spawnServer } from "../tests/_support/process.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    count: { type: "string", default: "100000" },
    rounds: { type: "string", default: "20" },
  },
});
const COUNT = Number(args.count);
const ROUNDS = Number(args.rounds);
const DAYS = 60;
const BATCH = 200;

async function api(url: string, token: string, init: RequestInit = {}) {
  const response = await fetch(url, {
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`${url}: ${JSON.stringify(body)}`);
  return body;
}

/** Writes `count` records of `formId` into the store at `dir` (the server is stopped). */
async function populate(dir: string, formId: string, count: number): Promise<void> {
  const kv = await openStore(dir);
  const start = Date.now() - DAYS * 86_400_000;
  let op = kv.atomic();
  let inBatch = 0;
  const days = new Map<string, bigint>();
  for (let i = 0; i < count; i++) {
    const createdAt = savedAtOf(new Date(start + Math.floor((i / count) * DAYS * 86_400_000)));
    const recordId = crypto.getRandomValues(new Uint8Array(16)).toHex();
    const row: VaultRecordRow = {
      recordId,
      formId,
      schemaVersion: 1,
      savedAt: createdAt,
      createdAt,
      submissionId: recordId,
      appliedVersion: 1,
      values: {
        name: `Sender ${i}`,
        email: `sender${i}@example.com`,
        message: "A message of moderate length, as feedback forms get them. ".repeat(2),
        rating: i % 5 + 1,
      },
      parts: 0,
    };
    op.set(vaultKeys.record(formId, recordId), row);
    op.set(vaultKeys.recordByTime(formId, createdAt, recordId), true);
    const day = createdAt.slice(0, 10);
    days.set(day, (days.get(day) ?? 0n) + 1n);
    if (++inBatch === BATCH || i === count - 1) {
      op.sum(vaultKeys.recordCount(formId), BigInt(inBatch));
      await op.commit();
      op = kv.atomic();
      inBatch = 0;
    }
  }
  for (const [day, n] of days) await kv.set(vaultKeys.recordDay(formId, day), new Deno.KvU64(n));
  kv.close();
}

/** Resident memory of process `pid`, in MiB. */
function rssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** Median and 95th percentile of `ms`. */
function summary(ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return `median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms`;
}

async function timed(run: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await run();
  return performance.now() - t0;
}

/** Runs `consume` while sampling `pid`'s RSS every 25 ms; returns time and RSS figures. */
async function withRss(pid: number, consume: () => Promise<number>) {
  const before = rssMiB(pid);
  let peak = before;
  const samples: number[] = [];
  const timer = setInterval(() => {
    const now = rssMiB(pid);
    samples.push(now);
    peak = Math.max(peak, now);
  }, 25);
  const t0 = performance.now();
  const rows = await consume();
  const ms = performance.now() - t0;
  clearInterval(timer);
  const q = (f: number) => samples[Math.floor(f * (samples.length - 1))] ?? before;
  return { rows, ms, before, peak, quartiles: [q(0.25), q(0.5), q(0.75)] };
}

async function countLines(response: Response): Promise<number> {
  let lines = 0;
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return lines;
    for (const byte of value) if (byte === 10) lines++;
  }
}

const dir = await Deno.makeTempDir({ prefix: "sealpost-bench-console-" });
try {
  let server = await spawnServer(dir);
  const token = server.credentials.ownerToken;
  const db = await api(`${server.url}/vault/databases`, token, {
    method: "POST",
    body: JSON.stringify({ name: "bench" }),
  });
  await api(`${server.url}/vault/forms`, token, {
    method: "POST",
    body: JSON.stringify({
      databaseId: db.id,
      formId: "bench",
      title: "Bench",
      fields: [
        { id: "name", label: "Name", kind: "text" },
        { id: "email", label: "Email", kind: "email" },
        { id: "message", label: "Message", kind: "richText" },
        { id: "rating", label: "Rating", kind: "number" },
      ],
    }),
  });
  await server.stop();
  const login = await firstPersonOf(dir);
  const setup = await timed(() => populate(dir, "bench", COUNT));
  console.log(`${COUNT} records written in ${(setup / 1000).toFixed(1)} s`);
  server = await spawnServer(dir);
  const pid = server.child.pid;
  const browser = new ConsoleClient(server.url);
  await browser.signIn(login);
  const page = `/console/forms/bench/records`;
  const apiPage = `${server.url}/vault/forms/bench/records?limit=50`;
  const first = await browser.page(page);
  if (!first.includes(`${COUNT} records.`)) throw new Error("The page does not show every record");

  const consoleMs: number[] = [];
  const apiMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    await browser.page(page);
    await api(apiPage, token);
  }
  for (let i = 0; i < ROUNDS; i++) {
    consoleMs.push(await timed(() => browser.page(page).then(() => {})));
    apiMs.push(await timed(() => api(apiPage, token).then(() => {})));
  }
  console.log(`\nFirst page of ${COUNT} records, ${ROUNDS} rounds each, interleaved:`);
  console.log(`  console GET ${page} (50 rows, chart, count): ${summary(consoleMs)}`);
  console.log(`  API     GET /vault/forms/bench/records?limit=50:     ${summary(apiMs)}`);

  // Search and "recently updated" read every record head: a few rounds show what that costs.
  const scanMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    scanMs.push(await timed(() => browser.page(`${page}?sort=updated`).then(() => {})));
  }
  console.log(`  console GET ${page}?sort=updated (reads every head):  ${summary(scanMs)}`);

  const exportCsv = () =>
    withRss(pid, async () => {
      const response = await browser.request("/console/forms/bench/export.csv");
      return await countLines(response) - 1;
    });
  const csv = await exportCsv();
  const paged = await withRss(pid, async () => {
    let cursor: string | null = null;
    let rows = 0;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
      const body: { items: unknown[]; nextCursor: string | null } = await api(
        `${server.url}/vault/forms/bench/records?limit=500${query}`,
        token,
      );
      rows += body.items.length;
      cursor = body.nextCursor;
    } while (cursor);
    return rows;
  });
  const show = (name: string, r: typeof csv) =>
    console.log(
      `  ${name}: ${r.rows} rows in ${(r.ms / 1000).toFixed(2)} s; server RSS ` +
        `${r.before.toFixed(0)} MiB before, ${
          r.quartiles.map((m) => m.toFixed(0)).join(" / ")
        } MiB at 25/50/75% of the run, peak ${r.peak.toFixed(0)} MiB`,
    );
  console.log(`\nExport of every record:`);
  show("console GET /console/forms/bench/export.csv (streamed)", csv);
  show("API     GET /vault/forms/bench/records?limit=500, every page", paged);
  // The first export also fills the store's page cache and the heap; a second one shows what
  // an export itself holds.
  const again = await exportCsv();
  show("console export.csv again                                 ", again);
  if (csv.rows !== COUNT || again.rows !== COUNT) {
    throw new Error(`The export has ${csv.rows} rows, not ${COUNT}`);
  }
  await server.stop();
} finally {
  await Deno.remove(dir, { recursive: true });
}
