/**
 * Let's Encrypt's test ACME CA, `pebble`, from Debian's `pebble` package, on 127.0.0.1 only,
 * for the ACME tests. Its HTTPS certificate is made here (the package ships none) by a CA of its
 * own, which is what a client trusts through `server.tls.acme.ca_file`. Its validator resolves
 * every name to 127.0.0.1 through `pebble-challtestsrv`'s mock DNS (same package), and connects
 * for HTTP-01 to `httpPort`, where the server under test must listen (`server.http_port`).
 * Validation does not sleep (`PEBBLE_VA_NOSLEEP=1`) and good nonces are never refused
 * (`PEBBLE_WFE_NONCEREJECT=0`). Pebble makes a new root and intermediate at each start: fetch
 * them from its management interface (`/roots/0`, `/intermediates/0`).
 *
 * `pebbleUp()` is idempotent: a pebble of this checkout that still answers is reused, unless its
 * HTTP-01 port (which pebble holds no socket on, so anything may have taken it since) is busy.
 */
import { join } from "node:path";
import { issue, makeCa } from "../certificates.ts";
import {
  freePort,
  portIsFree,
  readState,
  run,
  servicesDir,
  stepTimer,
  stopPidFile,
  until,
} from "./_run.ts";

/** How to reach pebble. */
export interface PebbleEnv {
  /** The ACME directory, `https://127.0.0.1:…/dir`. */
  directoryUrl: string;
  /** The management interface (`/roots/0`, `/intermediates/0`). */
  managementUrl: string;
  /** PEM file of the CA of pebble's own HTTPS certificate (`server.tls.acme.ca_file`). */
  caFile: string;
  /** The port pebble's validator connects to for HTTP-01 (`server.http_port`). */
  httpPort: number;
  /** Seconds each step of the start took (absent when a running pebble was reused). */
  timings?: Record<string, number>;
}

const dir = () => join(servicesDir(), "pebble");
const stateFile = () => join(dir(), "state.json");

/** An HTTP client that trusts pebble's own HTTPS certificate. */
function client(env: PebbleEnv): Deno.HttpClient {
  return Deno.createHttpClient({ caCerts: [Deno.readTextFileSync(env.caFile)] });
}

async function answers(env: PebbleEnv): Promise<boolean> {
  const http = client(env);
  try {
    const response = await fetch(env.directoryUrl, {
      client: http,
      signal: AbortSignal.timeout(2000),
    });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  } finally {
    http.close();
  }
}

/**
 * The PEM of pebble's root and intermediate (what its certificates chain to), from its
 * management interface.
 *
 * @example
 * ```ts
 * const [root, intermediate] = await pebbleRoots(await pebbleUp());
 * ```
 */
export async function pebbleRoots(env: PebbleEnv): Promise<[string, string]> {
  const http = client(env);
  try {
    const get = async (path: string) => {
      const response = await fetch(`${env.managementUrl}${path}`, { client: http });
      if (!response.ok) throw new Error(`pebble ${path}: HTTP ${response.status}`);
      return await response.text();
    };
    return [await get("/roots/0"), await get("/intermediates/0")];
  } finally {
    http.close();
  }
}

/** Starts `command` in its own session, output to `log`; writes its pid to `pidFile`. */
async function daemon(
  command: string[],
  env: Record<string, string>,
  log: string,
  pidFile: string,
): Promise<void> {
  const quoted = command.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  const assignments = Object.entries(env).map(([k, v]) => `${k}=${v}`).join(" ");
  const { stdout } = await run("sh", [
    "-c",
    `${assignments} setsid ${quoted} > '${log}' 2>&1 < /dev/null & echo $!`,
  ]);
  await Deno.writeTextFile(pidFile, stdout.trim());
}

/**
 * Starts pebble of this checkout (or reuses it when it answers) and returns how to reach it.
 *
 * @example
 * ```ts
 * const pebble = await pebbleUp(); // { directoryUrl: "https://127.0.0.1:…/dir", … }
 * ```
 */
export async function pebbleUp(): Promise<PebbleEnv> {
  const known = await readState<PebbleEnv>(stateFile());
  if (known && portIsFree(known.httpPort) && await answers(known)) return known;
  await pebbleDown();
  const root = dir();
  await Deno.mkdir(root, { recursive: true });
  const { timings, step } = stepTimer();
  const ca = await makeCa(root, "pebble-https-ca");
  const tls = await issue(root, ca, "pebble-https", ["localhost", "127.0.0.1"]);
  step("certificates");
  const [acmePort, managementPort, dnsPort, challtestPort, httpPort, tlsPort] = Array.from(
    { length: 6 },
    freePort,
  );
  const config = join(root, "pebble-config.json");
  await Deno.writeTextFile(
    config,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: tls.certFile,
        privateKey: tls.keyFile,
        httpPort,
        tlsPort,
        ocspResponderURL: "",
        externalAccountBindingRequired: false,
      },
    }),
  );
  // Mock DNS only: every A query is 127.0.0.1, no AAAA (the server under test is on IPv4).
  await daemon(
    [
      "pebble-challtestsrv",
      "-dns01",
      `127.0.0.1:${dnsPort}`,
      "-http01",
      "",
      "-https01",
      "",
      "-tlsalpn01",
      "",
      "-management",
      `127.0.0.1:${challtestPort}`,
      "-defaultIPv4",
      "127.0.0.1",
      "-defaultIPv6",
      "",
    ],
    {},
    join(root, "challtestsrv.log"),
    join(root, "challtestsrv.pid"),
  );
  await daemon(
    ["pebble", "-config", config, "-dnsserver", `127.0.0.1:${dnsPort}`],
    { PEBBLE_VA_NOSLEEP: "1", PEBBLE_WFE_NONCEREJECT: "0" },
    join(root, "pebble.log"),
    join(root, "pebble.pid"),
  );
  const env: PebbleEnv = {
    directoryUrl: `https://127.0.0.1:${acmePort}/dir`,
    managementUrl: `https://127.0.0.1:${managementPort}`,
    caFile: ca.certFile,
    httpPort,
  };
  try {
    await until("pebble did not answer", () => answers(env), 30_000);
  } catch (err) {
    const log = await Deno.readTextFile(join(root, "pebble.log")).catch(() => "");
    await pebbleDown();
    throw new Error(`pebble could not start: ${(err as Error).message}\n${log.slice(-2000)}`);
  }
  step("start");
  await Deno.writeTextFile(stateFile(), JSON.stringify(env));
  return { ...env, timings };
}

/** Stops pebble and its DNS and deletes their folder (nothing happens when none runs). */
export async function pebbleDown(): Promise<void> {
  await stopPidFile(join(dir(), "pebble.pid"));
  await stopPidFile(join(dir(), "challtestsrv.pid"));
  await Deno.remove(dir(), { recursive: true }).catch((err) => {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  });
}
