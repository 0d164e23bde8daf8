/**
 * bench/webhooks: record events delivered to a local receiver by the webhook engine, beside a
 * baseline in the same run: a plain loop of the same number of fetch POSTs to the same
 * receiver at the same concurrency.
 *
 * - burst: `--events` record saves (`--savers` loops, each event committed and announced
 *   the way the vault's ingest does: group-committed, then announced in-process) as fast as
 *   they go; deliveries/s from the first save to the last receipt.
 * - floor: the least any durable delivery does, without the engine, to tell the engine's own
 *   cost from the cost of durability: the same saves, then per record render, sign and POST
 *   (at the same concurrency) and one group-committed write (the attempt's state row, the
 *   body for retries, the event's deletion). What the floor runs below the baseline, no
 *   engine can make up.
 * - paced (run first, on a quiet engine): `--paced` saves at `--rate` per second, for the
 *   save-to-receipt latency when the service keeps up.
 *
 * Baseline, floor and burst run in `--rounds` interleaved rounds (a slow spell of a shared
 * machine then weighs on all three); each round's rates and ratios are printed, and the
 * medians of the ratios decide.
 *
 * The engine runs in this process with the default settings (signed, default body mode,
 * `--concurrency` requests in flight); the receiver is a child process.
 *
 * Usage: deno run -A bench/webhooks.ts [--events 10000] [--paced 2000] [--rate 200]
 *   [--concurrency 8] [--savers 32] [--rounds 3] [--timeout 300]
 */
import { parseArgs } from "node:util";
import { ConfigSchema } from "../src/config/index.ts";
import { utf8Encode } from "../src/crypto/encoding.ts";
import { emitRecordEvent } from "../src/store/kv/record_events.ts";
import {
  type RecordEvent,
  RecordEventAnnouncer,
  type StoredRecordEvent,
} from "../src/store/ports/record_events.ts";
import { keys } from "../src/store/kv/keys.ts";
import { deleteParts } from "../src/store/kv/parts.ts";
import { GroupCommitter } from "../src/store/kv/group_commit.ts";
import { QueueDispatcher } from "../src/store/kv/queue.ts";
import { newConfig } from "../src/webhooks/config.ts";
import {
  formatSavedAt,
  renderDefault,
  resolveValues,
  signBody,
  WebhookCreateSchema,
  WebhookEngine,
  type WebhookField,
} from "../src/webhooks/index.ts";
import { webhookKvPorts } from "../src/store/kv/webhook_ports.ts";
import { cpuPerItem, type ThreadCpu, threadCpu } from "./cpu.ts";

/** The configuration's signing secret. */
const SECRET = "bench-signing-secret-0123456789";

/** Epoch milliseconds with sub-millisecond precision, comparable across processes. */
const now = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------------
// The receiver (child process): records save-to-receipt latency per phase.
// ---------------------------------------------------------------------------------------------

if (Deno.args[0] === "--receiver") {
  const phases = new Map<string, { latencies: number[]; first: number; last: number }>();
  Deno.serve(
    { hostname: "127.0.0.1", port: Number(Deno.args[1]), onListen: () => {} },
    async (req) => {
      if (req.method === "GET") {
        const phase = new URL(req.url).searchParams.get("phase")!;
        const p = phases.get(phase) ?? { latencies: [], first: 0, last: 0 };
        return Response.json(p);
      }
      const body = await req.json();
      const at = now();
      const phase = String(body.phase);
      let p = phases.get(phase);
      if (!p) phases.set(phase, p = { latencies: [], first: at, last: at });
      p.latencies.push(at - Number(body.t));
      p.last = at;
      return new Response(null, { status: 204 });
    },
  );
} else {
  await main();
}

async function main() {
  const { values: args } = parseArgs({
    args: Deno.args,
    options: {
      events: { type: "string", default: "10000" },
      paced: { type: "string", default: "2000" },
      rate: { type: "string", default: "200" },
      concurrency: { type: "string", default: "8" },
      savers: { type: "string", default: "32" },
      rounds: { type: "string", default: "3" },
      timeout: { type: "string", default: "300" },
    },
  });
  const events = Number(args.events);
  const paced = Number(args.paced);
  const concurrency = Number(args.concurrency);
  const savers = Number(args.savers);
  const roundCount = Number(args.rounds);
  const deadline = Date.now() + Number(args.timeout) * 1000;
  const timer = setTimeout(() => {
    console.error(`bench/webhooks: over the ${args.timeout} s time limit`);
    Deno.exit(1);
  }, Number(args.timeout) * 1000);

  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const receiver = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname, "--receiver", String(port)],
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const hookUrl = `http://127.0.0.1:${port}/hook`;
  const stats = async (phase: string) =>
    (await (await fetch(`${hookUrl}?phase=${phase}`)).json()) as {
      latencies: number[];
      first: number;
      last: number;
    };
  for (let i = 0;; i++) {
    try {
      await (await fetch(`${hookUrl}?phase=none`)).body?.cancel();
      break;
    } catch {
      if (i > 200) throw new Error("The receiver did not start");
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const waitCount = async (phase: string, n: number) => {
    while (Date.now() < deadline) {
      const s = await stats(phase);
      if (s.latencies.length >= n) return s;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`Phase ${phase}: not all ${n} deliveries arrived in time`);
  };

  // The engine, as `serve` runs it (default settings but the concurrency asked for).
  const dir = await Deno.makeTempDir({ prefix: "sealpost-bench-webhooks-" });
  const kv = await Deno.openKv(`${dir}/bench.kv`);
  const fields: WebhookField[] = [
    { id: "name", kind: "text" },
    { id: "email", kind: "email" },
    { id: "age", kind: "number" },
    { id: "tags", kind: "list" },
    { id: "note", kind: "text" },
    { id: "phase", kind: "text" },
    { id: "t", kind: "number" },
  ];
  const settings = {
    ...ConfigSchema.parse({}).webhooks,
    concurrency_per_webhook: concurrency,
  };
  const queue = new QueueDispatcher(kv);
  const announcer = new RecordEventAnnouncer();
  const ports = webhookKvPorts(kv, queue, announcer);
  const engine = new WebhookEngine({
    ...ports,
    forms: { databaseOf: () => Promise.resolve("d"), fields: () => Promise.resolve(fields) },
    settings,
  });
  await engine.start();
  const listening = queue.start();
  const { row } = newConfig(
    "bench",
    WebhookCreateSchema.parse({ url: hookUrl, signingSecret: SECRET }),
  );
  await ports.webhooks.createConfig(row);

  const values = (phase: string) => ({
    name: "Ada Lovelace",
    email: "ada@example.com",
    age: 36,
    tags: ["math", "engines", "poetry"],
    note: "Notes on the Analytical Engine. ".repeat(8),
    phase,
    t: now(),
  });
  let seq = 0;
  const committer = new GroupCommitter(kv);
  /** Saves a record event; announced to the engine unless `announce` is false. */
  const save = async (phase: string, announce = true): Promise<StoredRecordEvent> => {
    const id = `${phase}-${++seq}`;
    const event: RecordEvent = {
      eventId: id,
      reason: "insert",
      recordId: id,
      formId: "bench",
      schemaVersion: 1,
      savedAt: formatSavedAt(new Date()),
      values: values(phase),
    };
    let stored: StoredRecordEvent | null = null;
    const { ok } = await committer.commit({
      lock: id,
      build: (w) => stored = emitRecordEvent(w, event),
    });
    if (!ok || !stored) throw new Error(`Save ${id} failed`);
    if (announce) announcer.announce([stored]);
    return stored;
  };

  /** The default-mode body of `event`, as the engine renders it. */
  const bodyOf = async (event: Omit<RecordEvent, "eventId" | "schemaVersion">) =>
    renderDefault(await resolveValues(event, fields, { blobUrlLifetimeSeconds: 1 }), {});
  // Baseline: the same number of POSTs of a body of the same size, same concurrency.
  const sampleBody = (phase: string) =>
    bodyOf({
      recordId: "bench-1",
      formId: "bench",
      savedAt: formatSavedAt(new Date()),
      reason: "insert",
      values: values(phase),
    });
  const baseline = async (phase: string, n: number) => {
    let next = 0;
    const started = now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++;
        const res = await fetch(hookUrl, {
          method: "POST",
          headers: { "content-type": "application/json; charset=utf-8" },
          body: await sampleBody(phase),
        });
        await res.body?.cancel();
      }
    }));
    return n / ((now() - started) / 1000);
  };
  // The floor: saves not announced (the engine never sees them), delivered by `concurrency`
  // plain loops; each delivery's write group-committed without holding its loop.
  const floorCommitter = new GroupCommitter(kv, undefined, 2);
  const floor = async (phase: string, n: number) => {
    const started = now();
    const ready: StoredRecordEvent[] = [];
    const idle: (() => void)[] = [];
    const writes: Promise<unknown>[] = [];
    let saved = 0;
    let taken = 0;
    const saving = Array.from({ length: savers }, async () => {
      while (saved++ < n) {
        ready.push(await save(phase, false));
        idle.shift()?.();
      }
    });
    const senders = Array.from({ length: concurrency }, async () => {
      while (taken < n) {
        const stored = ready.shift();
        if (!stored) {
          await new Promise<void>((wake) => idle.push(wake));
          continue;
        }
        taken++;
        const { event } = stored;
        const body = utf8Encode(await bodyOf(event));
        const signature = signBody(SECRET, body);
        const at = new Date().toISOString();
        const sent = now();
        const res = await fetch(hookUrl, {
          method: "POST",
          headers: [
            ["Content-Type", "application/json; charset=utf-8"],
            ["X-Service-Signature", signature],
          ],
          body: body as Uint8Array<ArrayBuffer>,
          redirect: "manual",
        });
        await res.body?.cancel();
        const row = {
          id: event.eventId,
          status: "delivered",
          attempts: 1,
          log: [{ n: 1, at, status: res.status, durationMs: now() - sent }],
        };
        const key = ["bench_floor", "delivery", event.eventId];
        writes.push(floorCommitter.commit({
          lock: event.eventId,
          build: (w) => {
            w.check({ key, versionstamp: null })
              .set(key, row).set(["bench_floor", "body", event.eventId], body);
            deleteParts(w, keys.recordEvent(event.eventId), stored.parts);
          },
        }));
      }
      // The last ones out wake the loops still waiting.
      for (const wake of idle.splice(0)) wake();
    });
    await Promise.all([...saving, ...senders]);
    await Promise.all(writes);
    return n / ((now() - started) / 1000);
  };
  const burst = async (phase: string, n: number) => {
    const started = now();
    let next = 0;
    await Promise.all(Array.from({ length: savers }, async () => {
      while (next++ < n) await save(phase);
    }));
    const saved = now();
    const s = await waitCount(phase, n);
    return { rate: n / ((s.last - started) / 1000), saveRate: n / ((saved - started) / 1000), s };
  };

  await baseline("warm-baseline", 300);
  await floor("warm-floor", 300);
  await burst("warm-engine", 300);

  // Paced first, on a quiet engine; then the burst (whose queue backlog would skew it).
  const rate = Number(args.rate);
  const pacedStart = now();
  for (let i = 0; i < paced; i++) {
    const due = pacedStart + (i * 1000) / rate;
    const wait = due - now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await save("paced");
  }
  const pacedStats = await waitCount("paced", paced);
  // Rounds of the three, interleaved, so that a slow spell of the machine weighs on all
  // three alike; rates and ratios are each round's, summed up by their median.
  type Kind = "baseline" | "floor" | "webhooks";
  const cpu = new Map<Kind, { self: ThreadCpu; receiver: ThreadCpu }>();
  const add = (into: ThreadCpu, before: ThreadCpu, after: ThreadCpu) => {
    for (const [key, ms] of after) {
      into.set(key, (into.get(key) ?? 0) + ms - (before.get(key) ?? 0));
    }
  };
  const measured = async <T>(kind: Kind, run: () => Promise<T>): Promise<T> => {
    const self = threadCpu();
    const other = threadCpu(receiver.pid);
    const result = await run();
    const sums = cpu.get(kind) ?? { self: new Map(), receiver: new Map() };
    add(sums.self, self, threadCpu());
    add(sums.receiver, other, threadCpu(receiver.pid));
    cpu.set(kind, sums);
    return result;
  };
  const rounds: { baseline: number; floor: number; webhooks: number }[] = [];
  const burstLatencies: number[] = [];
  const saveRates: number[] = [];
  for (let r = 1; r <= roundCount; r++) {
    const baselineRate = await measured("baseline", () => baseline(`baseline-${r}`, events));
    const floorRate = await measured("floor", () => floor(`floor-${r}`, events));
    const engine = await measured("webhooks", () => burst(`burst-${r}`, events));
    rounds.push({ baseline: baselineRate, floor: floorRate, webhooks: engine.rate });
    burstLatencies.push(...engine.s.latencies);
    saveRates.push(engine.saveRate);
  }

  const pct = (xs: number[], p: number) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  };
  const median = (xs: number[]) => pct(xs, 50);
  const f = (n: number, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d });
  const cpuText = (kind: Kind) => {
    const sums = cpu.get(kind)!;
    const items = events * roundCount;
    return `${cpuPerItem(new Map(), sums.self, items)}; receiver ${
      cpuPerItem(new Map(), sums.receiver, items).replace(/.* · (total)/, "$1")
    }`;
  };
  console.log(
    `events ${f(events)} per phase, ${roundCount} rounds, concurrency ${concurrency}, ` +
      `default settings, signed bodies`,
  );
  console.log(
    `| round | baseline (fetch loop) /s | floor (durable loop) /s | webhooks /s | ratio |`,
  );
  console.log(`|--:|--:|--:|--:|--:|`);
  for (const [i, round] of rounds.entries()) {
    console.log(
      `| ${i + 1} | ${f(round.baseline)} | ${f(round.floor)} | ${f(round.webhooks)} | ${
        (round.webhooks / round.baseline).toFixed(2)
      } |`,
    );
  }
  console.log(`saves/s while delivering (median): ${f(median(saveRates))}`);
  console.log(
    `save-to-receipt p50 / p99 ms: burst ${f(pct(burstLatencies, 50), 1)} / ${
      f(pct(burstLatencies, 99), 1)
    }; paced ${f(paced)} at ${f(rate)}/s ${f(pct(pacedStats.latencies, 50), 1)} / ${
      f(pct(pacedStats.latencies, 99), 1)
    }`,
  );
  console.log(`CPU µs per request, baseline: ${cpuText("baseline")}`);
  console.log(`CPU µs per delivery, floor: ${cpuText("floor")}`);
  console.log(`CPU µs per delivery, webhooks: ${cpuText("webhooks")}`);
  const ratio = median(rounds.map((r) => r.webhooks / r.baseline));
  const floorRatio = median(rounds.map((r) => r.floor / r.baseline));
  const ofFloor = median(rounds.map((r) => r.webhooks / r.floor));
  const p99 = pct(pacedStats.latencies, 99);
  console.log(
    `median ratios: webhooks/baseline ${ratio.toFixed(2)} (target >= 0.5: ${
      ratio >= 0.5 ? "met" : "not met"
    }); floor/baseline ${floorRatio.toFixed(2)}; webhooks/floor ${ofFloor.toFixed(2)}; ` +
      `paced p99 ${p99.toFixed(1)} ms (target < 200: ${p99 < 200 ? "met" : "not met"})`,
  );

  clearTimeout(timer);
  await engine.stop();
  kv.close();
  await listening;
  receiver.kill("SIGTERM");
  await receiver.status;
  await Deno.remove(dir, { recursive: true });
}
