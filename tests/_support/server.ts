/**
 * Test helpers: a real server on a random loopback port, in a fresh data dir.
 */
import { type Config, loadConfig } from "../../src/config/index.ts";
import { type Credentials, readCredentials } from "../../src/store/data_dir.ts";
import { initDataDir } from "../../src/init/init.ts";
import { type RunningServer, startServer } from "../../src/server.ts";

/** A running test instance. */
export interface TestInstance {
  url: string;
  config: Config;
  credentials: Credentials;
  server: RunningServer;
  /** Stops the server and removes its data dir. */
  close(): Promise<void>;
}

/**
 * Environment-style overrides, e.g. `{ SEALPOST_INTAKE_MAX_CIPHERTEXT_BYTES: "1024" }`; a
 * given `dataDir` is kept on close; `port` 0 is a random one.
 */
export async function startInstance(
  env: Record<string, string> = {},
  dataDir?: string,
  port = 0,
): Promise<TestInstance> {
  const dir = dataDir ?? await Deno.makeTempDir({ prefix: "sealpost-test-" });
  const config = await loadConfig({
    env: {
      SEALPOST_RATE_LIMITS_ENABLED: "false",
      SEALPOST_SERVER_REQUEST_LOG: "false",
      // Tests open many parallel connections from one loopback address.
      SEALPOST_SERVER_MAX_CONNECTIONS_PER_ADDRESS: "4096",
      ...env,
    },
    flags: { data: dir, host: "127.0.0.1", port },
  });
  await initDataDir(config);
  const server = await startServer(config);
  const credentials = (await readCredentials(dir))!;
  return {
    url: server.url,
    config,
    credentials,
    server,
    close: async () => {
      await server.shutdown();
      if (!dataDir) await Deno.remove(dir, { recursive: true });
    },
  };
}

/** A fetch that returns status, headers and parsed JSON (null for an empty body). */
export async function call(
  url: string,
  init: RequestInit & { json?: unknown; token?: string } = {},
  // deno-lint-ignore no-explicit-any
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers = new Headers(init.headers);
  if (init.json !== undefined) headers.set("content-type", "application/json");
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  const response = await fetch(url, {
    ...init,
    headers,
    body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
  });
  const text = await response.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, headers: response.headers, body };
}
