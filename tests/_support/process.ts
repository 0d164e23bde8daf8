/**
 * A Sealpost server in a child process (`deno run -A main.ts serve`), for crash and restart
 * tests and for benchmarks.
 */

/** A free loopback port. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Waits until `url` answers (bounded). */
export async function waitFor(url: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    try {
      const res = await fetch(url);
      await res.body?.cancel();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** A server process. */
export interface ServerProcess {
  url: string;
  port: number;
  dataDir: string;
  child: Deno.ChildProcess;
  /** Owner credentials written by init. */
  credentials: { userId: string; ownerToken: string; adminToken: string };
  /** Sends `signal` and waits for the exit. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
}

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** A `sealpost serve` process, listening. */
export interface ServeChild {
  url: string;
  port: number;
  child: Deno.ChildProcess;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
}

/**
 * Starts `sealpost serve --port PORT ...args` and waits for `/healthz` (rate limits and request
 * log off unless `env` says); `main` is this checkout's `main.ts` unless another is named.
 */
export async function spawnServeArgs(
  args: string[],
  env: Record<string, string> = {},
  port = freePort(),
  main = MAIN,
): Promise<ServeChild> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, "serve", "--port", String(port), ...args],
    env: {
      SEALPOST_RATE_LIMITS_ENABLED: "false",
      SEALPOST_SERVER_REQUEST_LOG: "false",
      // Tests open many parallel connections from one loopback address.
      SEALPOST_SERVER_MAX_CONNECTIONS_PER_ADDRESS: "4096",
      ...env,
    },
    stdin: "null",
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`);
  return {
    url,
    port,
    child,
    stop: async (signal: Deno.Signal = "SIGTERM") => {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
      return await child.status;
    },
  };
}

/**
 * Starts `sealpost serve` on `dataDir` (rate limits and request log off unless `env` says),
 * from this checkout's `main.ts` or `main`.
 */
export async function spawnServer(
  dataDir: string,
  env: Record<string, string> = {},
  port = freePort(),
  main = MAIN,
): Promise<ServerProcess> {
  const served = await spawnServeArgs(["--data", dataDir], env, port, main);
  const credentials = JSON.parse(await Deno.readTextFile(`${dataDir}/credentials.json`));
  return { ...served, dataDir, credentials };
}
