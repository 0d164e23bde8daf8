/**
 * `sealpost doctor`: checks a live deployment, one line per check (src/doctor), exit 1 when
 * one fails. See docs/deploy.md, "Check it".
 *
 * @module
 */
import { ConfigError, publicBaseUrl } from "../config/index.ts";
import { readCredentials } from "../store/data_dir.ts";
import { type CheckResult, runDoctor } from "../doctor/index.ts";
import { flagOptions, JSON_AND_HELP, localConfig, parseCommand, usageFailure } from "./args.ts";
import { SealpostClient } from "./client.ts";

const USAGE = `Usage: sealpost doctor [--url URL] [--token ADMIN_TOKEN] [--data DIR] [--config FILE]
                      [--json]

Checks a live deployment from the machine it runs on, one line per check:
  base_url_reachable  GET {base_url}/healthz answers
  base_url_matches    the instance's own base_url (GET /admin/instance) is that URL
  tls_certificate     days left of the certificate an https base_url presents, else of
                      server.tls.cert_file; a plain-http public base_url warns
  clock               this machine's clock against the server's Date header (fails > 60 s)
  storage             the instance's storage verdict from /healthz
  data_dir_modes      the data dir is 700 and its files (secrets, store) 600
  open_files          the server's open-file limit (GET /admin/instance, else the pid in
                      the data dir's serve.lock, else this doctor's own, as the line says)
  disk_free           free space under the data dir (fails under 1 GiB or 5 %)
  s3_bucket           HEAD of the bucket, when blobs.backend = "s3"
  postgres            select 1, when store.backend = "postgres"
The base URL is --url, else SEALPOST_URL, else base_url of the configuration, else the one
credentials.json records. The admin token comes from --token, SEALPOST_TOKEN or the data
dir's credentials.json. Run it with the server's --config and environment so that the
backends it names are the server's.
  --url URL       The public base URL to check
  --token TOKEN   An admin token (spa_…)
  --data DIR      The data dir (default: the instance's, when on this machine)
  --config FILE   The server's configuration (also SEALPOST_CONFIG)
  --json          Print {"ok", "checks": [{"name","status","detail"}]}

Exit status: 0 nothing failed (warnings allowed), 1 a check failed, 2 usage error.
`;

const OPTIONS = {
  ...flagOptions("string", ["url", "token", "data", "config"]),
  ...JSON_AND_HELP,
} as const;

const LABEL = { ok: "ok  ", warn: "WARN", fail: "FAIL", skip: "skip" } as const;

/** One printed line per result: `ok   name  detail`. */
function lines(results: CheckResult[]): string {
  const width = Math.max(...results.map((r) => r.name.length));
  return results.map((r) => `${LABEL[r.status]}  ${r.name.padEnd(width)}  ${r.detail}`).join("\n");
}

/**
 * Runs `sealpost doctor …` (`args` without the command name).
 *
 * @example
 * ```ts
 * Deno.exit(await doctorCommand(["--url", "https://forms.example.org"]));
 * ```
 */
export async function doctorCommand(args: string[]): Promise<number> {
  const parsed = parseCommand(args, OPTIONS, USAGE);
  if (typeof parsed === "number") return parsed;
  const { values: flags, positionals } = parsed;
  if (positionals.length > 0) {
    return usageFailure(`Unexpected arguments: ${positionals.join(" ")}`, USAGE);
  }
  let config;
  try {
    config = await localConfig(flags);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    return 1;
  }
  const data = flags.data ?? config.data_dir;
  const credentials = await readCredentials(data).catch(() => null);
  // The configuration's base_url when it sets one, before the one credentials.json recorded.
  const configured = config.base_url ? publicBaseUrl(config) : undefined;
  const client = await SealpostClient.resolve({
    url: flags.url ?? Deno.env.get("SEALPOST_URL") ?? configured ?? credentials?.baseUrl,
    token: flags.token,
    data,
    role: "admin",
  });
  const results = await runDoctor({ client, config, dataDir: flags.data });
  const ok = !results.some((r) => r.status === "fail");
  if (flags.json) console.log(JSON.stringify({ ok, checks: results }));
  else console.log(lines(results));
  return ok ? 0 : 1;
}
