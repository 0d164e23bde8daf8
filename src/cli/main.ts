/**
 * The `sealpost` command line.
 *
 * @module
 */
import { NEED } from "../people/access.ts";
import { parseArgs } from "node:util";
import { ConfigError, loadConfig, publicBaseUrl, unknownVariables } from "../config/index.ts";
import { claimDataDir, DataDirError, dataPaths } from "../store/data_dir.ts";
import { initDataDir, type InitResult } from "../init/init.ts";
import { ListenError, type RunningServer, startServer } from "../server.ts";
import { SchemaVersionError } from "../store/ports/limits.ts";
import type { StoreMigration } from "../store/open.ts";
import { PgUnavailableError } from "../store/pg/index.ts";
import { VERSION } from "../version.ts";
import { ApiCallError, SealpostClient } from "./client.ts";
import { helpText, programCommand } from "./program.ts";
import { flagOptions, JSON_AND_HELP } from "./args.ts";
import type { DemoInfo } from "../vault/index.ts";
import { shareLink } from "../web/links.ts";
import { firstPerson } from "../init/first_person.ts";
import { passwordLinkOf } from "../people/people.ts";
import { DomainError } from "../errors/index.ts";

/** A command's runner: resolves to the exit code. */
type Run = (args: string[]) => Promise<number>;

/** `run` given the arguments after the command's name. */
function afterName(run: Run): Run {
  return (args) => run(args.slice(1));
}

/**
 * The commands run by their own module (loaded on demand), by name: the vault's owner command
 * groups, webhooks and deliveries, backup and restore with all `args`; the others with the
 * arguments after their name.
 */
const OWN_MODULE = new Map<string, () => Promise<Run>>([
  ["db", async () => (await import("./db.ts")).dbCommand],
  ["form", async () => (await import("./form.ts")).formCommand],
  ["records", async () => (await import("./records.ts")).recordsCommand],
  ["quarantine", async () => (await import("./quarantine.ts")).quarantineCommand],
  ["token", async () => (await import("./token.ts")).tokenCommand],
  ["webhook", async () => (await import("./webhook.ts")).webhookCommand],
  ["deliveries", async () => (await import("./webhook.ts")).webhookCommand],
  ["backup", async () => (await import("./backup.ts")).backupCommand],
  ["restore", async () => (await import("./backup.ts")).backupCommand],
  ["submit", async () => afterName((await import("./submit.ts")).submitCommand)],
  [
    "migrate-store",
    async () => afterName((await import("./migrate_store.ts")).migrateStoreCommand),
  ],
  ["audit", async () => afterName((await import("./audit.ts")).auditCommand)],
  ["key", async () => afterName((await import("./key_export.ts")).keyCommand)],
  ["doctor", async () => afterName((await import("./doctor.ts")).doctorCommand)],
  ["blob", async () => afterName((await import("./blob.ts")).blobCommand)],
]);

/** How long a stop waits for the vault's first-run setup to finish. */
const SETUP_GRACE_MS = 10_000;

const USAGE = `sealpost ${VERSION}: end-to-end encrypted form backend

Usage: sealpost <command> [options]

Commands:
  serve                 Run the service (initialises an empty data dir first)
  init [--email ADDR]   Prepare a data dir: relay secret, admin token, first user
                        and person (an instance admin), and their set-password link
  user add --email ADDR [--name NAME] [--admin]
                        Add a person (instance admin's token); prints their one-time
                        set-password link
  submit ...            Seal and submit values to a form (see "sealpost submit --help")
  blob put ...          Upload a file, print its file reference ("sealpost blob --help")
  db|form|records|quarantine ...
                        The vault's owner commands (see "sealpost form --help")
  token create|list|revoke ...
                        Your API tokens: scoped, shown once, revocable
                        (see "sealpost token --help")
  webhook add|list|show|edit|remove|test ...
                        A form's webhooks (see "sealpost webhook --help")
  deliveries list|show|retry ...
                        Webhook deliveries, their attempts, retries
                        (see "sealpost deliveries --help")
  backup --out FILE     Archive the data dir (store snapshot, blobs, secrets), live
  restore FILE --data DIR
                        Unpack a backup into a new, empty data dir
  migrate-store --config FILE
                        Copy a stopped KV/fs instance into PostgreSQL/S3
  audit export --out FILE | audit verify [FILE]
                        The audit log as signed JSON lines, and its check
                        (see "sealpost audit --help")
  key export-age FINGERPRINT --out FILE
                        A database's private key as an age identity (age -d -i FILE)
  doctor                Check a live deployment: base URL, TLS, clock, data dir modes,
                        open files, disk, backends ("sealpost doctor --help")

Common options:
  --config FILE   TOML config (also SEALPOST_CONFIG)
  --data DIR      Data dir (default ./data)
  --host HOST     Listen address (default 127.0.0.1)
  --port PORT     Listen port (default 8080)
  --role ROLE     serve: all (default), relay, or vault (SEALPOST_RELAY_TOKEN once)
  --relay URL     serve --role vault: the relay to pull from
  --url URL       Instance to talk to (client commands; also SEALPOST_URL)
  --token TOKEN   API token (client commands; also SEALPOST_TOKEN)
  --json          Print JSON
  -h, --help      Show help
  -V, --version   Show the version
`;

/** The help of each command this module runs. */
const COMMAND_HELP: Record<string, string> = {
  serve: `Usage: sealpost serve [--config FILE] [--data DIR] [--host HOST] [--port PORT]
                      [--role all|relay|vault] [--relay URL]

Runs the service. An empty data dir is initialised first (see "sealpost init --help"), and
the first start prints how to reach the instance, the demo form and a submit command.
SIGINT/SIGTERM stop accepting, finish in-flight requests and close the store. SIGHUP re-reads
the certificate files of [server.tls] (they are also watched), without dropping connections.
  --role all     relay and vault in one process (default)
  --role relay   the public half alone: intake, uploads, queues; no private key
  --role vault   the owner half, pulling from --relay URL (token: SEALPOST_RELAY_TOKEN once)
`,
  init: `Usage: sealpost init [--email ADDR] [--config FILE] [--data DIR] [--json]

Prepares a data dir, idempotently: relay secret, admin token, a first user with its owner
token, and credentials.json (0600). The first user is also the first person, an instance
admin, whose email is --email (else a placeholder; a later "init --email" changes it): while
they have set no password, init prints a one-time set-password link for them (7 days).
--json prints {"dataDir","baseUrl","userId","ownerToken","adminToken","person"}.
With store.backend = "postgres" the relay secret is kept in the database, and a database
another process initialised is joined: no new tokens (ownerToken and adminToken are null).
`,
  "user add": `Usage: sealpost user add --email ADDR [--name NAME] [--admin]
                        [--url URL] [--token TOKEN] [--data DIR] [--json]

Adds a person through the people API of a running instance and prints their one-time
set-password link (7 days; the link is shown once, the password is theirs alone). --admin
makes them an instance admin. The token is an instance admin's with the admin scope: --token,
SEALPOST_TOKEN, or the owner token of the data dir's credentials.json (the first person's).
`,
};

const OPTIONS = {
  ...flagOptions("string", [
    "config",
    "data",
    "host",
    "port",
    "role",
    "relay",
    "url",
    "token",
    "name",
    "email",
  ]),
  admin: { type: "boolean" },
  ...JSON_AND_HELP,
  version: { type: "boolean", short: "V" },
} as const;

type Flags = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>[
  "values"
];

async function configFrom(flags: Flags) {
  let port: number | undefined;
  if (flags.port !== undefined) {
    port = Number(flags.port);
    if (!/^\d+$/.test(flags.port)) throw new ConfigError(`Invalid --port "${flags.port}"`);
  }
  // Vault roles (src/vault): the flags ride on their environment names, above the file.
  const env = Deno.env.toObject();
  if (flags.role !== undefined) env.SEALPOST_SERVER_ROLE = flags.role;
  if (flags.relay !== undefined) env.SEALPOST_VAULT_RELAY_URL = flags.relay;
  return await loadConfig({
    file: flags.config,
    env,
    flags: { data: flags.data, host: flags.host, port },
  });
}

async function serve(flags: Flags): Promise<number> {
  const config = await configFrom(flags);
  for (const name of unknownVariables(Deno.env.toObject())) {
    console.error(
      `warning: ${name} is not a Sealpost setting and is ignored ` +
        "(the settings and their variables: config.example.toml)",
    );
  }
  // The lock first: init must not touch a data dir another process serves.
  const lock = await claimDataDir(config.data_dir);
  let server: RunningServer;
  let init: Awaited<ReturnType<typeof initDataDir>>;
  try {
    init = await initDataDir(config);
    reportMigration(init.migration);
    server = await startServer(config, { lock, firstUserId: init.userId });
  } catch (err) {
    lock.release();
    throw err;
  }
  // The vault's first-run setup (below); a stop waits for it, up to SETUP_GRACE_MS: stopped
  // halfway, its store closes under it and the next start redoes part of it.
  let setup: Promise<void> = Promise.resolve();
  // Listen for signals before saying anything: whoever reads the banner may stop us at once.
  const stop = () => {
    console.log("Shutting down: finishing in-flight requests");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<void>((resolve) => timer = setTimeout(resolve, SETUP_GRACE_MS));
    void Promise.race([setup, grace]).then(() => {
      clearTimeout(timer);
      return server.shutdown();
    });
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  if (init.created) {
    // The first person's one-time link (src/people/people.ts), while they have no password.
    const link = server.vault && server.firstPerson &&
      await passwordLinkOf(server.vault.store, server.firstPerson.personId, server.baseUrl);
    console.log(
      `Sealpost ${VERSION} initialised ${config.data_dir} and listens on ${server.url}\n` +
        `  public base URL:  ${server.baseUrl}\n` +
        `  credentials:      ${
          dataPaths(config.data_dir).credentials
        } (owner and admin tokens, 0600)\n` +
        (link ? `  set password:     ${link.link} (the first person's, one-time)\n` : "") +
        `  API description:  ${server.url}/openapi.json`,
    );
  } else {
    console.log(`Sealpost ${VERSION} listens on ${server.url} (data: ${config.data_dir})`);
  }
  // Vault first run (src/vault): a database, the manifest key and a published demo form; once
  // for all the vault workers of a shared store.
  const vault = server.vault;
  const first = server.firstPerson;
  if (vault && first) {
    const gate = vault.access.gate(first, NEED.forms);
    setup = server.store.exclusive("vault_bootstrap", () => vault.bootstrap(gate)).then(
      (demo) =>
        console.log(
          demo.deleted
            ? `  console:          ${server.baseUrl}/console (the demo form was deleted)`
            : demoText(demo, server.baseUrl),
        ),
      (err) =>
        console.error(
          `Vault setup did not finish (retried on the next start): ${(err as Error).message}`,
        ),
    );
    await setup;
  }
  await server.finished;
  await server.shutdown();
  return 0;
}

function demoText(demo: DemoInfo, ownUrl: string): string {
  const values = JSON.stringify({ name: "Ada", email: "ada@example.com", rating: 5 });
  const program = programCommand();
  return `  demo form id:     ${demo.formId}\n` +
    `  manifest key:     ${demo.manifestFingerprint} (senders pin this fingerprint)\n` +
    `  open the form:    ${shareLink(demo.relayUrl, demo.formId, demo.manifestFingerprint)}\n` +
    `  try it:           echo '${values}' | ${program} submit ${demo.formId} ` +
    `--relay ${demo.relayUrl} --pin ${demo.manifestFingerprint} --values -\n` +
    `  then:             ${program} records list ${demo.formId}\n` +
    // The owner console (src/console), served by this vault.
    `  console:          ${ownUrl}/console (sign in with your email and password)`;
}

/** Says on stderr which migrations upgraded the store, if any ran. */
function reportMigration(migration: StoreMigration): void {
  if (migration.applied.length === 0) return;
  console.error(
    `Upgraded the store of ${migration.where} from schema version ${migration.from} to ` +
      `${migration.to}:\n` + migration.applied.map((m) => `  ${m}`).join("\n"),
  );
}

/** Where the owner and admin tokens are: this data dir's file, or the initialising process's. */
function credentialsNote(result: InitResult): string {
  return result.credentials
    ? dataPaths(result.dataDir).credentials
    : "joined a database another process initialised: its data dir holds them";
}

async function init(flags: Flags): Promise<number> {
  const config = await configFrom(flags);
  const result = await initDataDir(config);
  reportMigration(result.migration);
  // The first person (src/init/first_person.ts): null for a relay, or a joined store.
  const person = await firstPerson(config, flags.email);
  const report = {
    dataDir: result.dataDir,
    baseUrl: publicBaseUrl(config),
    userId: result.userId,
    // Null when this process joined a database another process initialised.
    ownerToken: result.credentials?.ownerToken ?? null,
    adminToken: result.credentials?.adminToken ?? null,
    person,
  };
  if (flags.json) console.log(JSON.stringify(report));
  else {
    console.log(
      `${result.created ? "Initialised" : "Already initialised:"} ${result.dataDir}\n` +
        `  user id:     ${report.userId}\n` +
        `  credentials: ${credentialsNote(result)}` +
        (person ? `\n  first person: ${person.email} (instance admin)` : "") +
        (person?.setPasswordLink
          ? `\n  set password: ${person.setPasswordLink} (one-time link, until ${
            person.expiresAt!.slice(0, 10)
          })`
          : ""),
    );
  }
  return 0;
}

async function userAdd(flags: Flags): Promise<number> {
  if (!flags.email) {
    console.error(`Missing --email\n\n${helpText(COMMAND_HELP["user add"])}`);
    return 2;
  }
  const client = await SealpostClient.resolve({
    url: flags.url,
    token: flags.token,
    data: flags.data,
    role: "owner",
  });
  const added = await client.call<{
    person: { id: string; email: string };
    setPasswordLink: string;
    expiresAt: string;
  }>("POST", "/vault/people", {
    email: flags.email,
    name: flags.name ?? "",
    instanceAdmin: flags.admin === true,
  });
  if (flags.json) console.log(JSON.stringify(added));
  else {
    console.log(
      `person id:    ${added.person.id} (${added.person.email})\n` +
        `set password: ${added.setPasswordLink}\n` +
        `  (a one-time link, shown once, until ${added.expiresAt.slice(0, 10)}: send it to them)`,
    );
  }
  return 0;
}

/**
 * Runs the command line with `args`; resolves to the process exit code.
 *
 * @example
 * ```ts
 * Deno.exit(await main(Deno.args));
 * ```
 */
export async function main(args: string[]): Promise<number> {
  const ownModule = OWN_MODULE.get(args[0]);
  if (ownModule) return await (await ownModule())(args);
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${helpText(USAGE)}`);
    return 2;
  }
  const { values: flags, positionals } = parsed;
  if (flags.version) {
    console.log(`sealpost ${VERSION}`);
    return 0;
  }
  const command = positionals.join(" ");
  if (flags.help && COMMAND_HELP[command]) {
    console.log(helpText(COMMAND_HELP[command]));
    return 0;
  }
  if (flags.help || command === "" || command === "help") {
    console.log(helpText(USAGE));
    return command === "" && !flags.help ? 2 : 0;
  }
  try {
    switch (command) {
      case "serve":
        return await serve(flags);
      case "init":
        return await init(flags);
      case "user add":
        return await userAdd(flags);
      default:
        console.error(`Unknown command "${command}"\n\n${helpText(USAGE)}`);
        return 2;
    }
  } catch (err) {
    if (
      err instanceof ConfigError || err instanceof ApiCallError || err instanceof ListenError ||
      err instanceof SchemaVersionError || err instanceof DataDirError ||
      err instanceof PgUnavailableError || err instanceof DomainError
    ) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
}
