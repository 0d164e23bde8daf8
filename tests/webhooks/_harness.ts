/**
 * Test fixtures for webhook delivery: an engine on a fresh KV file with a fast schedule, and a
 * scripted receiver on loopback.
 */
import { emitRecordEvent } from "../../src/store/kv/record_events.ts";
import { type RecordEvent, RecordEventAnnouncer } from "../../src/store/ports/record_events.ts";
import type {
  WebhookConfig,
  WebhookDelivery,
  WebhookPorts,
} from "../../src/store/ports/webhooks.ts";
import { webhookKvPorts } from "../../src/store/kv/webhook_ports.ts";
import { QueueDispatcher } from "../../src/store/kv/queue.ts";
import { newConfig } from "../../src/webhooks/config.ts";
import {
  type BlobUrlResolver,
  formatSavedAt,
  type FormSource,
  WebhookCreateSchema,
  WebhookEngine,
  type WebhookField,
  type WebhookSettings,
} from "../../src/webhooks/index.ts";
import { KvWrite } from "../../src/store/kv/write.ts";

/** A schedule in tenths of seconds, no jitter, 1 s timeout. */
export const FAST: WebhookSettings = {
  retry_schedule_seconds: [0, 0.2, 0.4, 0.6],
  jitter_ratio: 0,
  retry_after_max_seconds: 2,
  request_timeout_seconds: 1,
  concurrency_per_webhook: 4,
  blob_url_lifetime_seconds: 604800,
  block_private_networks: false,
};

/** The test form's fields. */
export const FIELDS: WebhookField[] = [
  { id: "name", kind: "text" },
  { id: "age", kind: "number" },
  { id: "tags", kind: "list" },
];

/** The user who owns every form here. */
export const OWNER = "user_1";
/** The database of the test form `contact`. */
export const OWNER_DATABASE = "db_1";

/** A new record event of form `contact` with `values`, saved now. */
export function contactEvent(
  values: Record<string, unknown>,
  overrides: Partial<RecordEvent> = {},
): RecordEvent {
  const id = crypto.randomUUID().replaceAll("-", "");
  return {
    eventId: id,
    reason: "insert",
    recordId: `rec_${id.slice(0, 12)}`,
    formId: "contact",
    schemaVersion: 1,
    savedAt: formatSavedAt(new Date()),
    values,
    ...overrides,
  };
}

/** Polls `check` every 10 ms until it returns a value other than undefined/false. */
export async function until<T>(
  check: () => T | Promise<T>,
  what: string,
  timeoutMs = 10_000,
): Promise<Exclude<T, false | undefined | null>> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const value = await check();
    if (value !== undefined && value !== false && value !== null) {
      return value as Exclude<T, false | undefined | null>;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** An engine with its ports, queue and KV file. */
export interface Harness extends WebhookPorts {
  /** The store the vault writes record events to. */
  kv: Deno.Kv;
  dir: string;
  engine: WebhookEngine;
  logs: string[];
  /** Adds a webhook configuration (create-request fields) to form `contact`. */
  addWebhook(input: Record<string, unknown>): Promise<WebhookConfig>;
  /** Emits a record event the way the vault does. */
  emit(values: Record<string, unknown>, overrides?: Partial<RecordEvent>): Promise<RecordEvent>;
  /** The delivery of `event` to `webhookId`, once it exists. */
  deliveryOf(event: RecordEvent, webhookId: string): Promise<WebhookDelivery | null>;
  /** Waits until that delivery has `status`. */
  waitStatus(
    event: RecordEvent,
    webhookId: string,
    status: WebhookDelivery["status"],
    timeoutMs?: number,
  ): Promise<WebhookDelivery>;
  /** Stops the engine and closes the store (the KV file stays unless `remove`). */
  close(remove?: boolean): Promise<void>;
}

/** Starts an engine on `dir` (a fresh temp dir by default). */
export async function startHarness(
  settings: Partial<WebhookSettings> = {},
  options: {
    dir?: string;
    fields?: WebhookField[] | null;
    start?: boolean;
    maxWaiting?: number;
    maxActive?: number;
    blobUrl?: BlobUrlResolver;
  } = {},
): Promise<Harness> {
  const dir = options.dir ?? await Deno.makeTempDir({ prefix: "sealpost-webhooks-" });
  const kv = await Deno.openKv(`${dir}/webhooks.kv`);
  const fields = options.fields === undefined ? FIELDS : options.fields;
  const forms: FormSource = {
    databaseOf: (formId) => Promise.resolve(formId === "contact" ? "db-contact" : null),
    fields: () => Promise.resolve(fields),
  };
  const queue = new QueueDispatcher(kv);
  const announcer = new RecordEventAnnouncer();
  const ports = webhookKvPorts(kv, queue, announcer);
  const logs: string[] = [];
  const engine = new WebhookEngine({
    ...ports,
    forms,
    settings: { ...FAST, ...settings },
    log: (line) => logs.push(line),
    maxWaiting: options.maxWaiting,
    maxActive: options.maxActive,
    blobUrl: options.blobUrl,
  });
  if (options.start !== false) await engine.start();
  const listening = queue.start();
  const harness: Harness = {
    kv,
    dir,
    engine,
    ...ports,
    logs,
    addWebhook: async (input) => {
      const { row } = newConfig("contact", WebhookCreateSchema.parse(input));
      if (!await ports.webhooks.createConfig(row)) throw new Error("webhook id taken");
      return row;
    },
    emit: async (values, overrides = {}) => {
      const event = contactEvent(values, overrides);
      const op = new KvWrite();
      const stored = emitRecordEvent(op, event);
      if (!await op.commit(kv)) throw new Error("emit failed");
      announcer.announce([stored]);
      return event;
    },
    deliveryOf: async (event, webhookId) => {
      let cursor: string | undefined;
      do {
        const page = await ports.deliveries.deliveries(webhookId, { cursor, limit: 500 });
        const row = page.items.find((d) => d.eventId === event.eventId);
        if (row) return row;
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return null;
    },
    waitStatus: (event, webhookId, status, timeoutMs = 10_000) =>
      until(
        async () => {
          const row = await harness.deliveryOf(event, webhookId);
          return row?.status === status ? row : null;
        },
        `delivery of ${event.eventId} to be ${status}`,
        timeoutMs,
      ),
    close: async (remove = true) => {
      await engine.stop();
      kv.close();
      await listening;
      if (remove) await Deno.remove(dir, { recursive: true });
    },
  };
  return harness;
}

/** One request as the receiver got it. */
export interface Received {
  /** performance.now() at arrival. */
  at: number;
  method: string;
  path: string;
  headers: Headers;
  /** The raw body bytes. */
  raw: Uint8Array;
  text: string;
}

/** A scripted receiver on loopback. */
export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Resolves once `n` requests have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** Answers request number `n` (1-based) with what `script` returns. */
export type Script = (n: number, request: Received) => Response | Promise<Response>;

/** Starts a receiver on 127.0.0.1 (port 0 unless given). */
export function startReceiver(script: Script, port = 0): Receiver {
  const received: Received[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, onListen: () => {} },
    async (request) => {
      const raw = new Uint8Array(await request.arrayBuffer());
      const entry: Received = {
        at: performance.now(),
        method: request.method,
        path: new URL(request.url).pathname,
        headers: request.headers,
        raw,
        text: new TextDecoder().decode(raw),
      };
      received.push(entry);
      return await script(received.length, entry);
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/hook`,
    port: server.addr.port,
    received,
    waitFor: (n, timeoutMs = 10_000) =>
      until(() => received.length >= n && received, `${n} requests at the receiver`, timeoutMs),
    close: () => server.shutdown(),
  };
}

/** A loopback port nothing listens on (yet). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** HMAC-SHA256 hex of `bytes` under `secret`, computed by python3's hmac module. */
export async function pythonSignature(python: string, secret: string, bytes: Uint8Array) {
  const child = new Deno.Command(python, {
    args: [
      "-c",
      "import sys, hmac, hashlib; print('sha256=' + hmac.new(sys.argv[1].encode(), " +
      "sys.stdin.buffer.read(), hashlib.sha256).hexdigest())",
      secret,
    ],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(bytes);
  await writer.close();
  return new TextDecoder().decode((await child.output()).stdout).trim();
}
