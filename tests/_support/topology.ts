/**
 * Several `sealpost serve` processes as one deployment, for the topology test
 * (tests/scale/topology_test.ts) and bench/scale.ts: relay and vault-worker subprocesses
 * (`deno run -A main.ts serve`), a round-robin load balancer in front of the relays, a load
 * generator that spreads sealed submissions over the live relays (retrying a refused or cut
 * request on another one, as a sender's retry would), and readers of what the vault saved.
 */
import { join } from "node:path";
import {
  buildEnvelope,
  buildPayload,
  fetchManifest,
  type Manifest,
  seal,
  type SubmissionEnvelope,
} from "../../src/sdk/mod.ts";
import { fingerprint } from "../../src/crypto/keys.ts";
import { openPg } from "../../src/store/pg/db.ts";
import { type PostgresEnv, postgresUp } from "./services/postgres.ts";
import { dropBucket, prepareBucket, radosgwUp, s3ServerEnv } from "./services/radosgw.ts";
import { freePort, waitFor } from "./process.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** A `sealpost serve` subprocess that can be killed and started again on the same port. */
export interface ServeProcess {
  name: string;
  url: string;
  port: number;
  dataDir: string;
  /** Its stderr (in its data dir), appended to across restarts. */
  logFile: string;
  /** The running child (replaced by {@link ServeProcess.restart}). */
  child: Deno.ChildProcess;
  /** Whether the last start has not exited yet. */
  readonly alive: boolean;
  /** Sends `signal` (default SIGTERM) and waits for the exit. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
  /** Starts it again with the same arguments, data dir and port; waits for `/healthz`. */
  restart(): Promise<void>;
}

/** Options of {@link spawnServe}. */
export interface ServeOptions {
  /** Extra arguments after `serve` (`--role relay`, `--relay URL`, …). */
  args?: string[];
  /** Environment (settings as SEALPOST_* variables). */
  env?: Record<string, string>;
  /** The data dir (a new temporary folder when not given). */
  dataDir?: string;
  /** How long to wait for `/healthz` (default 60 s: two cores shared by many processes). */
  startTimeoutMs?: number;
}

/** Settings every process of a test deployment gets (rate limits off, quiet, fast polls). */
export const QUIET_ENV: Record<string, string> = {
  SEALPOST_RATE_LIMITS_ENABLED: "false",
  SEALPOST_SERVER_REQUEST_LOG: "false",
  SEALPOST_SERVER_MAX_CONNECTIONS_PER_ADDRESS: "4096",
  SEALPOST_VAULT_POLL_INTERVAL_SECONDS: "0.2",
};

/**
 * Starts `sealpost serve` as a subprocess and waits until it answers `/healthz`.
 *
 * @example
 * ```ts
 * const relay = await spawnServe("relay-1", { args: ["--role", "relay"] });
 * await relay.stop("SIGKILL");
 * await relay.restart();
 * ```
 */
export async function spawnServe(name: string, options: ServeOptions = {}): Promise<ServeProcess> {
  const dataDir = options.dataDir ??
    await Deno.makeTempDir({ prefix: `sealpost-${name}-` });
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const logFile = join(dataDir, "serve-stderr.log");
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  const launch = async () => {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        MAIN,
        "serve",
        "--data",
        dataDir,
        "--port",
        String(port),
        ...options.args ?? [],
      ],
      env: { ...QUIET_ENV, ...options.env },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    exited = false;
    child.status.then(() => exited = true);
    const log = await Deno.open(logFile, { append: true, create: true });
    child.stderr.pipeTo(log.writable).catch(() => {});
    return child;
  };
  const proc: ServeProcess = {
    name,
    url,
    port,
    dataDir,
    logFile,
    child: await launch(),
    get alive() {
      return !exited;
    },
    stop: async (signal: Deno.Signal = "SIGTERM") => {
      try {
        proc.child.kill(signal);
      } catch { /* already gone */ }
      return await proc.child.status;
    },
    restart: async () => {
      proc.child = await launch();
      await answering(proc, options.startTimeoutMs);
    },
  };
  await answering(proc, options.startTimeoutMs);
  return proc;
}

async function answering(proc: ServeProcess, timeoutMs = 60_000): Promise<void> {
  const exit = proc.child.status.then((status) => {
    throw new Error(`${proc.name} exited (${status.code}) before answering`);
  });
  try {
    await Promise.race([waitFor(`${proc.url}/healthz`, timeoutMs), exit]);
  } catch (err) {
    const log = await Deno.readTextFile(proc.logFile).catch(() => "");
    throw new Error(`${(err as Error).message}\n${proc.name}'s log:\n${log.slice(-3000)}`);
  }
}

/** Hop-by-hop and length headers a proxy does not pass on. */
const HOP_HEADERS = ["connection", "keep-alive", "host", "content-length", "transfer-encoding"];

/** A round-robin HTTP load balancer on loopback. */
export interface Balancer {
  url: string;
  /** Requests passed to another upstream because one could not be reached. */
  readonly failovers: number;
  close(): Promise<void>;
}

/**
 * A load balancer in front of `upstreams()` (read per request): each request goes to the next
 * one in turn; when that one cannot be reached (refused, reset) the request is sent to the
 * next, as a load balancer's health check and retry would. 502 when none answers.
 *
 * @example
 * ```ts
 * const lb = startBalancer(() => relays.map((r) => r.url));
 * ```
 */
export function startBalancer(upstreams: () => string[]): Balancer {
  let next = 0;
  let failovers = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      const body = request.method === "GET" || request.method === "HEAD"
        ? undefined
        : new Uint8Array(await request.arrayBuffer());
      const headers = new Headers(request.headers);
      for (const name of HOP_HEADERS) headers.delete(name);
      const targets = upstreams();
      for (let tried = 0; tried < targets.length; tried++) {
        const target = targets[next++ % targets.length];
        try {
          return await fetch(`${target}${url.pathname}${url.search}`, {
            method: request.method,
            headers,
            body,
            redirect: "manual",
            // A client that goes away ends its upstream request, as a load balancer does (a
            // stopped vault worker's long poll must not stay open at the relay).
            signal: request.signal,
          });
        } catch {
          if (request.signal.aborted) break;
          failovers++;
        }
      }
      return Response.json({ error: { code: "bad_gateway", message: "No relay answered" } }, {
        status: 502,
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    get failovers() {
      return failovers;
    },
    close: () => server.shutdown(),
  };
}

/** Owner credentials `init` wrote into a data dir. */
export async function credentialsOf(
  dataDir: string,
): Promise<{ userId: string; ownerToken: string; adminToken: string }> {
  return JSON.parse(await Deno.readTextFile(join(dataDir, "credentials.json")));
}

/** GET `url` with a bearer token; the parsed JSON body (throws on a non-2xx answer). */
export async function getJson<T>(url: string, token: string): Promise<T> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** Polls `check` every `everyMs` until it returns a value; throws `what` after `timeoutMs`. */
export async function poll<T>(
  what: string,
  check: () => Promise<T | null | undefined>,
  timeoutMs: number,
  everyMs = 200,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown = null;
  while (Date.now() < end) {
    try {
      const value = await check();
      if (value !== null && value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${what} within ${timeoutMs / 1000} s${last ? `: ${last}` : ""}`);
}

/**
 * The vault's first-run demo form, once published: its id, and its signed manifest as
 * senders fetch it from `relayUrl` (pinned to the vault's manifest key).
 */
export async function demoForm(
  vaultUrl: string,
  token: string,
  relayUrl: string,
  timeoutMs = 60_000,
): Promise<{ formId: string; manifest: Manifest }> {
  const formId = await poll("The vault published its demo form", async () => {
    const forms = await getJson<{ items: { formId: string; publishedVersion: unknown }[] }>(
      `${vaultUrl}/vault/forms`,
      token,
    );
    return forms.items.find((f) => f.publishedVersion)?.formId;
  }, timeoutMs);
  const { fingerprint } = await getJson<{ fingerprint: string }>(
    `${vaultUrl}/vault/manifest-key`,
    token,
  );
  return { formId, manifest: await fetchManifest(formId, { relayUrl, pin: fingerprint }) };
}

/** `count` sealed envelopes of the demo form (names `sender {i}`), sealed 100 at a time. */
export async function sealEnvelopes(
  manifest: Manifest,
  count: number,
): Promise<SubmissionEnvelope[]> {
  const out: SubmissionEnvelope[] = [];
  for (let start = 0; start < count; start += 100) {
    out.push(
      ...await Promise.all(Array.from({ length: Math.min(100, count - start) }, async (_, k) => {
        const payload = buildPayload(manifest, {
          name: `sender ${start + k}`,
          email: `s${start + k}@example.com`,
          rating: 1 + (start + k) % 5,
        });
        return buildEnvelope(manifest, await seal(payload, manifest.recipient.publicKey));
      })),
    );
  }
  return out;
}

/** What {@link submitSpread} did. */
export interface SpreadResult {
  /** Submission ids a relay answered 200 for. */
  acknowledged: Set<string>;
  /** Requests per relay URL that were answered 200. */
  perRelay: Map<string, number>;
  /** Sends repeated on another relay after a refused or cut connection or a 5xx. */
  retries: number;
  seconds: number;
}

/**
 * Submits `envelopes` with `concurrency` requests in flight, each to the next of `relays()`
 * in turn; a request that fails to connect, is cut or answers 5xx is sent again (the same
 * envelope: an idempotent replay) to the next relay, up to `maxTries` times. `onAck` is told
 * of each acknowledgement (the topology test kills processes from it). Any other status
 * than 200 is an error.
 *
 * @example
 * ```ts
 * const { acknowledged } = await submitSpread(envelopes, () => relays.map((r) => r.url));
 * ```
 */
export async function submitSpread(
  envelopes: SubmissionEnvelope[],
  relays: () => string[],
  options: { concurrency?: number; maxTries?: number; onAck?: (n: number) => void } = {},
): Promise<SpreadResult> {
  const concurrency = options.concurrency ?? 32;
  const maxTries = options.maxTries ?? 50;
  const acknowledged = new Set<string>();
  const perRelay = new Map<string, number>();
  let retries = 0;
  let turn = 0;
  let next = 0;
  const started = performance.now();
  const send = async (envelope: SubmissionEnvelope) => {
    const body = JSON.stringify(envelope);
    for (let tries = 1;; tries++) {
      const targets = relays();
      const relay = targets[turn++ % targets.length];
      let status = 0;
      let text = "";
      try {
        const res = await fetch(`${relay}/submissions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        status = res.status;
        text = await res.text();
      } catch (err) {
        text = (err as Error).message;
      }
      if (status === 200) {
        acknowledged.add(envelope.submissionId);
        perRelay.set(relay, (perRelay.get(relay) ?? 0) + 1);
        options.onAck?.(acknowledged.size);
        return;
      }
      if (status !== 0 && status < 500) {
        throw new Error(`${relay} answered ${status} to ${envelope.submissionId}: ${text}`);
      }
      if (tries >= maxTries) {
        throw new Error(`${envelope.submissionId} not acknowledged after ${tries} tries: ${text}`);
      }
      retries++;
      await new Promise((r) => setTimeout(r, Math.min(1000, 20 * tries)));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < envelopes.length) await send(envelopes[next++]);
  }));
  return { acknowledged, perRelay, retries, seconds: (performance.now() - started) / 1000 };
}

/** Every record id of form `formId`, in the vault's order (pages of 1,000). */
export async function recordIds(vaultUrl: string, token: string, formId: string) {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 10_000; page++) {
    const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
    const body = await getJson<{ items: { _recordId: string }[]; nextCursor: string | null }>(
      `${vaultUrl}/vault/forms/${formId}/records?limit=1000${query}`,
      token,
    );
    ids.push(...body.items.map((r) => r._recordId));
    cursor = body.nextCursor;
    if (cursor === null) return ids;
  }
  throw new Error("More than 10,000 pages of records");
}

/** Settings that put every process of a deployment on shared engines, and their clean-up. */
export interface Backing {
  /** `kv` (each process its own KV file and blob folder) or `postgres` (shared engines). */
  backend: "kv" | "postgres";
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Every process on its own Deno KV file and blob folder (the default). */
export const KV_BACKING: Backing = { backend: "kv", env: {}, close: () => Promise.resolve() };

/** A deployment: relays behind a load balancer, vault workers pulling through it. */
export interface Deployment {
  relays: ServeProcess[];
  vaults: ServeProcess[];
  balancer: Balancer;
  /** The relay user's owner token (the vault workers' `SEALPOST_RELAY_TOKEN`). */
  relayToken: string;
  /** The vault owner's token (owner API of any vault worker). */
  ownerToken: string;
  formId: string;
  manifest: Manifest;
  /** The recipient key's fingerprint (the relay queue the vault workers drain). */
  fingerprint: string;
  /** The URLs of the relays that have not exited. */
  liveRelays(): string[];
  /** Starts one more vault worker with the first worker's keys. */
  addVault(): Promise<ServeProcess>;
  /** Stops every process (SIGTERM), the balancer, and removes the data dirs. */
  close(): Promise<void>;
}

/**
 * Starts `relays` relay processes (role relay; the first initialises the store, the others
 * join it), a balancer in front of them, and `vaults` vault workers (role vault, pulling
 * through the balancer; the first one bootstraps the demo form, the others get a copy of its
 * key files, as an operator copies `<data dir>/vault/keys`). `backing.env` goes to every
 * process. On failure everything started is stopped.
 *
 * @example
 * ```ts
 * const d = await startDeployment({ relays: 1, vaults: 1, backing: KV_BACKING });
 * await d.close();
 * ```
 */
export async function startDeployment(
  options: { relays: number; vaults: number; backing: Backing; env?: Record<string, string> },
): Promise<Deployment> {
  const root = await Deno.makeTempDir({ prefix: "sealpost-topology-" });
  const env = { ...options.backing.env, ...options.env };
  const relays: ServeProcess[] = [];
  const vaults: ServeProcess[] = [];
  const balancer = startBalancer(() => relays.filter((r) => r.alive).map((r) => r.url));
  // The vault workers' one address (their base_url), as an operator puts them behind a load
  // balancer: the links they sign (encrypted record files in webhook bodies) work whichever
  // worker made them, and whichever is alive.
  const vaultBalancer = startBalancer(() => vaults.filter((v) => v.alive).map((v) => v.url));
  const close = async () => {
    await Promise.all([...vaults, ...relays].map((p) => p.stop()));
    await balancer.close();
    await vaultBalancer.close();
    await Deno.remove(root, { recursive: true });
  };
  const dir = async (name: string) => {
    const path = join(root, name);
    await Deno.mkdir(path);
    return path;
  };
  try {
    const relay = async (i: number) =>
      spawnServe(`relay-${i}`, {
        args: ["--role", "relay"],
        env,
        dataDir: await dir(`relay-${i}`),
      });
    // The first relay initialises the store; the others join it, all at once.
    relays.push(await relay(1));
    relays.push(
      ...await Promise.all(Array.from({ length: options.relays - 1 }, (_, i) => relay(i + 2))),
    );
    const relayToken = (await credentialsOf(relays[0].dataDir)).ownerToken;
    const vaultEnv = {
      ...env,
      SEALPOST_RELAY_TOKEN: relayToken,
      SEALPOST_BASE_URL: vaultBalancer.url,
    };
    const vaultArgs = ["--role", "vault", "--relay", balancer.url];
    const first = await spawnServe("vault-1", {
      args: vaultArgs,
      env: vaultEnv,
      dataDir: await dir("vault-1"),
    });
    vaults.push(first);
    // On a shared database the first relay initialised it: its owner is the vault's owner too
    // (a joining process writes no credentials). On KV the vault has a store and owner of its own.
    const ownerToken = options.backing.backend === "postgres"
      ? relayToken
      : (await credentialsOf(first.dataDir)).ownerToken;
    const { formId, manifest } = await demoForm(first.url, ownerToken, balancer.url);
    const addVault = async () => {
      const dataDir = await dir(`vault-${vaults.length + 1}`);
      await copyTree(join(first.dataDir, "vault", "keys"), join(dataDir, "vault", "keys"));
      const worker = await spawnServe(`vault-${vaults.length + 1}`, {
        args: vaultArgs,
        env: vaultEnv,
        dataDir,
      });
      vaults.push(worker);
      return worker;
    };
    for (let i = 1; i < options.vaults; i++) await addVault();
    return {
      relays,
      vaults,
      balancer,
      relayToken,
      ownerToken,
      formId,
      manifest,
      fingerprint: fingerprint(Uint8Array.fromBase64(manifest.recipient.publicKey)),
      liveRelays: () => relays.filter((r) => r.alive).map((r) => r.url),
      addVault,
      close,
    };
  } catch (err) {
    const logs = await Promise.all(
      [...relays, ...vaults].map(async (p) =>
        `--- ${p.name}:\n${(await Deno.readTextFile(p.logFile).catch(() => "")).slice(-2000)}`
      ),
    );
    await close();
    throw new Error(`${(err as Error).message}\n${logs.join("\n")}`, { cause: err });
  }
}

/** Copies the files of `from` into `to` (created, 0700), keeping their modes. */
async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true, mode: 0o700 });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(join(from, entry.name), join(to, entry.name));
    else await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}

/** Envelopes the relay still holds in the queue of `fingerprint` (up to `limit`). */
export async function queued(
  relayUrl: string,
  token: string,
  fp: string,
  limit = 1,
): Promise<number> {
  const page = await getJson<{ items: unknown[] }>(
    `${relayUrl}/owner/queues/${fp}?limit=${limit}`,
    token,
  );
  return page.items.length;
}

/**
 * Every process on one PostgreSQL schema and one radosgw bucket of the test services (started
 * on first use; a fresh schema and bucket each time, dropped by `close`), or of `cluster`. The blob store's
 * keys go to the processes in files, the database URL (with the schema as its `search_path`)
 * in `SEALPOST_POSTGRES_URL`.
 *
 * @example
 * ```ts
 * const backing = await pgBacking();
 * const d = await startDeployment({ relays: 3, vaults: 2, backing });
 * ```
 */
export async function pgBacking(cluster?: PostgresEnv): Promise<Backing> {
  const pg = cluster ?? await postgresUp();
  const s3 = { ...await radosgwUp(), bucket: `t-${crypto.randomUUID().slice(0, 18)}` };
  const schema = `t_${crypto.randomUUID().replaceAll("-", "")}`;
  const admin = openPg(pg.url, { max: 1 });
  await admin.unsafe(`create schema ${schema}`);
  await prepareBucket(s3);
  const secrets = await Deno.makeTempDir({ prefix: "sealpost-s3-keys-" });
  return {
    backend: "postgres",
    env: {
      SEALPOST_STORE_BACKEND: "postgres",
      SEALPOST_POSTGRES_URL: `${pg.url}?search_path=${schema}`,
      ...await s3ServerEnv(s3, secrets),
    },
    close: async () => {
      await admin.unsafe(`drop schema ${schema} cascade`);
      await admin.end({ timeout: 5 });
      await dropBucket(s3);
      await Deno.remove(secrets, { recursive: true });
    },
  };
}
