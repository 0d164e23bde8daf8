/**
 * The owner's webhook commands: `webhook add|list|show|edit|remove|test` and
 * `deliveries list|show|retry`. Clients of the webhook owner API (`/owner/forms/{formId}/webhooks`,
 * `/owner/webhooks/...`, `/owner/deliveries/...`) of a running instance, local or remote.
 * Secrets are shown as the API shows them: masked, except a generated signing secret, once.
 *
 * @module
 */
import { MAX_WEBHOOK_CONCURRENCY } from "../config/index.ts";
import { countFlag, flagOptions, type Parsed, readInput, UsageError } from "./args.ts";
import type { SealpostClient } from "./client.ts";
import { need, OWNER_OPTIONS, ownerClient, parseLimit, print, runOwnerGroup } from "./owner.ts";
import { readValues } from "./submit.ts";

const SETTINGS_HELP = `
Settings (add, edit; edit sends only the ones given):
  --target URL              Where to send (add: or the TARGET_URL argument; --url is the
                            instance's URL, not the webhook's)
  --name NAME               A name for the owner
  --method METHOD           POST (default), PUT or PATCH
  --mode MODE               default (flat JSON), json_template, xml_template, form
  --template FILE           The template of the template modes ("-": stdin)
  --bearer-file FILE        Bearer token from FILE ("-": stdin), sent as Authorization: Bearer
  --bearer TOKEN            The same on the command line (lands in your shell history)
  --header "Name: value"    A custom header; repeat for more (edit: replaces all of them)
  --secret-file FILE        Signing secret from FILE ("-": stdin), 16 to 512 visible characters
  --secret SECRET           The same on the command line (lands in your shell history)
  --generate-secret         Let the instance make a whsec_ secret; printed this once
  --signature-header NAME   Header of the signature (default X-Service-Signature)
  --map FIELD=KEY           Send field FIELD under KEY, and only mapped fields; repeat for
                            more (edit: replaces all of them)
  --events LIST             Which events fire: comma-separated create,update,delete, or
                            "none" (default create,update)
  --standard-webhooks       Also send webhook-id, webhook-timestamp, webhook-signature
                            (needs a whsec_ secret)
  --concurrency N           Requests in flight at once to this webhook, 1 to 64 (default:
                            the instance's webhooks.concurrency_per_webhook)
Edit only:
  --no-bearer, --no-secret, --no-headers, --no-mappings, --no-standard-webhooks
                            Remove that setting
  --no-concurrency          Back to the instance's concurrency_per_webhook
`;

const HELP: Record<string, string> = {
  webhook: `Usage: sealpost webhook <command> [options]

  webhook add --form FORMID TARGET_URL [settings]
                          Add a webhook configuration to a form
  webhook list --form FORMID
                          The form's webhooks, one a line (flagged ones say why)
  webhook show ID         A configuration (secrets masked), its failure flag and its failed
                          deliveries
  webhook edit ID [settings]
                          Change the settings given; clears the failure flag
  webhook remove ID       Remove a configuration and its deliveries
  webhook test ID [--values FILE]
                          Send one request now with sample values, or the JSON object of
                          field values in FILE ("-": stdin); nothing is stored or retried.
                          Exit 1 when the receiver did not accept it
${SETTINGS_HELP}`,
  deliveries: `Usage: sealpost deliveries <command> [options]

  deliveries list --webhook ID [--failed] [--limit N] [--cursor CURSOR]
                          Newest first, one a line: id, record, event, status, attempts,
                          last HTTP status and error. --limit 1 to 500 (default 50); when
                          there are more, the next page's --cursor is printed on stderr
  deliveries show DELIVERYID
                          A delivery and each attempt: time, status, duration, error,
                          response snippet
  deliveries retry DELIVERYID
                          Send one delivery again now (a delivered one too)
  deliveries retry --webhook ID --failed
                          Send every failed delivery of a webhook again now
`,
};

/** The settings' flags (add, edit) by type, and edit's flags that remove a setting. */
const SETTING_STRINGS = [
  "target",
  "name",
  "method",
  "mode",
  "template",
  "bearer",
  "bearer-file",
  "secret",
  "secret-file",
  "signature-header",
  "events",
  "concurrency",
] as const;
const SETTING_BOOLEANS = ["generate-secret", "standard-webhooks"] as const;
const REMOVALS = [
  "no-bearer",
  "no-secret",
  "no-headers",
  "no-mappings",
  "no-standard-webhooks",
  "no-concurrency",
] as const;

const OPTIONS = {
  ...OWNER_OPTIONS,
  ...flagOptions("string", [...SETTING_STRINGS, "form", "values", "webhook", "limit", "cursor"]),
  ...flagOptions("boolean", [...SETTING_BOOLEANS, ...REMOVALS, "failed"]),
  header: { type: "string", multiple: true },
  map: { type: "string", multiple: true },
} as const;

type Flags = Parsed<typeof OPTIONS>["values"];
type Flag = keyof typeof OPTIONS;

const SETTINGS: Flag[] = [...SETTING_STRINGS, ...SETTING_BOOLEANS, "header", "map"];

/** The flags each command takes besides the common ones. */
const COMMANDS: Record<string, Flag[]> = {
  "webhook add": ["form", ...SETTINGS],
  "webhook list": ["form"],
  "webhook show": [],
  "webhook edit": [...SETTINGS, ...REMOVALS],
  "webhook remove": [],
  "webhook test": ["values"],
  "deliveries list": ["webhook", "failed", "limit", "cursor"],
  "deliveries show": [],
  "deliveries retry": ["webhook", "failed"],
};

type FlaggedFailure = {
  at: string;
  deliveryId: string | null;
  reason: "permanent" | "exhausted" | "blocked";
  status: number | null;
  error: string | null;
};

type Webhook = {
  id: string;
  formId: string;
  name: string;
  url: string;
  method: string;
  mode: string;
  template: string | null;
  bearer: string | null;
  headers: string[];
  signingSecret: string | null;
  signatureHeader: string;
  mappings: Record<string, string>;
  events: string[];
  standardWebhooks: boolean;
  /** Absent from instances older than the setting. */
  concurrency?: number | null;
  flagged: FlaggedFailure | null;
  createdAt: string;
  updatedAt: string;
  generatedSigningSecret?: string;
};

type Delivery = {
  id: string;
  webhookId: string;
  recordId: string;
  reason: string;
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  lastSnippet: string | null;
  createdAt: string;
  completedAt: string | null;
};

type Attempt = {
  n: number;
  at: string;
  status: number | null;
  durationMs: number;
  outcome: string;
  error: string | null;
  snippet: string | null;
  retryAfterSeconds: number | null;
};

type TestResult = {
  contentType: string;
  body: string;
  status: number | null;
  durationMs: number;
  outcome: string;
  error: string | null;
  snippet: string | null;
};

type Page = { items: Delivery[]; nextCursor: string | null };

/** The one positional argument `what` (and no other). */
function single(args: string[], what: string): string {
  if (args.length > 1) throw new UsageError(`Unexpected argument "${args[1]}"`);
  return encodeURIComponent(need(args[0], what));
}

/** The flag of `names` that was given, if any; a usage error when several were. */
function oneOf(flags: Flags, names: Flag[]): Flag | undefined {
  const given = names.filter((n) => flags[n] !== undefined);
  if (given.length > 1) {
    throw new UsageError(`Give one of ${given.map((n) => `--${n}`).join(", ")}, not several`);
  }
  return given[0];
}

/** A secret from its flag, or the trimmed content of the file its `-file` flag names. */
async function secretOf(flags: Flags, flag: "bearer" | "secret"): Promise<string> {
  const file = flags[`${flag}-file`];
  if (file === undefined) return flags[flag]!;
  const text = (await readInput(file, `--${flag}-file`)).trim();
  if (!text) throw new UsageError(`--${flag}-file "${file}" is empty`);
  return text;
}

/** `--map FIELD=KEY` flags as the mappings object. */
function mappingsOf(specs: string[]): Record<string, string> {
  const mappings: Record<string, string> = {};
  for (const spec of specs) {
    const eq = spec.indexOf("=");
    if (eq < 1 || eq === spec.length - 1) throw new UsageError(`--map "${spec}" is not FIELD=KEY`);
    const field = spec.slice(0, eq);
    if (field in mappings) throw new UsageError(`--map gives field "${field}" twice`);
    mappings[field] = spec.slice(eq + 1);
  }
  return mappings;
}

/** The request body of `add` or `edit`: the settings given, nothing else. */
async function settingsBody(flags: Flags): Promise<Record<string, unknown>> {
  const fromStdin = (["template", "bearer-file", "secret-file"] as const).filter((n) =>
    flags[n] === "-"
  );
  if (fromStdin.length > 1) {
    throw new UsageError(`Only one of ${fromStdin.map((n) => `--${n}`).join(", ")} can read stdin`);
  }
  const body: Record<string, unknown> = {};
  if (flags.name !== undefined) body.name = flags.name;
  if (flags.target !== undefined) body.url = flags.target;
  if (flags.method !== undefined) body.method = flags.method.toUpperCase();
  if (flags.mode !== undefined) body.mode = flags.mode;
  if (flags.template !== undefined) body.template = await readInput(flags.template, "--template");
  const bearer = oneOf(flags, ["bearer", "bearer-file", "no-bearer"]);
  if (bearer) body.bearer = bearer === "no-bearer" ? null : await secretOf(flags, "bearer");
  const secret = oneOf(flags, ["secret", "secret-file", "generate-secret", "no-secret"]);
  if (secret === "generate-secret") body.generateSigningSecret = true;
  else if (secret) {
    body.signingSecret = secret === "no-secret" ? null : await secretOf(flags, "secret");
  }
  if (flags["signature-header"] !== undefined) body.signatureHeader = flags["signature-header"];
  if (oneOf(flags, ["header", "no-headers"])) body.headers = flags.header ?? [];
  if (oneOf(flags, ["map", "no-mappings"])) body.mappings = mappingsOf(flags.map ?? []);
  if (flags.events !== undefined) {
    const events = flags.events.split(",").map((e) => e.trim()).filter(Boolean);
    body.events = events.length === 1 && events[0] === "none" ? [] : events;
  }
  const standard = oneOf(flags, ["standard-webhooks", "no-standard-webhooks"]);
  if (standard) body.standardWebhooks = standard === "standard-webhooks";
  const concurrency = oneOf(flags, ["concurrency", "no-concurrency"]);
  if (concurrency) {
    body.concurrency = concurrency === "no-concurrency"
      ? null
      : countFlag("concurrency", flags.concurrency!, MAX_WEBHOOK_CONCURRENCY);
  }
  return body;
}

function flagText(f: FlaggedFailure): string {
  return `${f.reason}${f.status === null ? "" : ` HTTP ${f.status}`}${
    f.error ? `: ${f.error}` : ""
  } (${f.deliveryId === null ? "" : `delivery ${f.deliveryId}, `}${f.at})`;
}

function webhookLine(w: Webhook): string {
  return [
    w.id,
    `${w.method} ${w.url}`,
    w.mode,
    w.events.length ? w.events.join(",") : "no events",
    ...(w.name ? [w.name] : []),
    ...(w.flagged ? [`FLAGGED ${flagText(w.flagged)}`] : []),
  ].join("  ");
}

function webhookText(w: Webhook): string {
  const mappings = Object.entries(w.mappings).map(([field, key]) => `${field} -> ${key}`);
  const rows: [string, string][] = [
    ["id", w.id],
    ["form", w.formId],
    ["name", w.name || "-"],
    ["target", `${w.method} ${w.url}`],
    ["mode", w.mode],
    ["bearer", w.bearer ?? "none"],
    ["headers", w.headers.join(`\n${" ".repeat(19)}`) || "none"],
    ["signing secret", w.signingSecret ?? "none"],
    ["signature header", w.signatureHeader],
    ["standard webhooks", w.standardWebhooks ? "yes" : "no"],
    ["concurrency", w.concurrency ? String(w.concurrency) : "instance default"],
    ["mappings", mappings.join(", ") || "none (every field under its id)"],
    ["events", w.events.join(", ") || "none"],
    ["created", w.createdAt],
    ["updated", w.updatedAt],
    ["flagged", w.flagged ? flagText(w.flagged) : "no"],
  ];
  let text = rows.map(([label, value]) => `${`${label}:`.padEnd(19)}${value}`).join("\n");
  if (w.template !== null) text += `\ntemplate:\n${w.template.replace(/^/gm, "  ")}`;
  if (w.generatedSigningSecret) {
    text += `\ngenerated signing secret: ${w.generatedSigningSecret}\n` +
      "  (shown this once: give it to the receiver now)";
  }
  return text;
}

function deliveryLine(d: Delivery): string {
  return [
    d.id,
    d.recordId,
    d.reason,
    d.status,
    `${d.attempts} attempt${d.attempts === 1 ? "" : "s"}`,
    ...(d.lastStatus === null ? [] : [`HTTP ${d.lastStatus}`]),
    ...(d.lastError ? [d.lastError] : []),
  ].join("  ");
}

function attemptLine(a: Attempt): string {
  return [
    `#${a.n}`,
    a.at,
    a.status === null ? "no response" : `HTTP ${a.status}`,
    `${Math.round(a.durationMs)} ms`,
    a.outcome,
    ...(a.retryAfterSeconds === null ? [] : [`Retry-After ${a.retryAfterSeconds} s`]),
    ...(a.error ? [a.error] : []),
    ...(a.snippet ? [JSON.stringify(a.snippet)] : []),
  ].join("  ");
}

function testText(r: TestResult): string {
  const lines = [
    `${r.outcome}  ${r.status === null ? "no response" : `HTTP ${r.status}`}  ${
      Math.round(r.durationMs)
    } ms`,
  ];
  if (r.error) lines.push(`error:    ${r.error}`);
  if (r.snippet) lines.push(`response: ${r.snippet}`);
  lines.push(`sent:     ${r.contentType}`, r.body);
  return lines.join("\n");
}

async function webhookRun(
  client: SealpostClient,
  command: string,
  args: string[],
  flags: Flags,
): Promise<number> {
  const hook = (what = "ID") => `/owner/webhooks/${single(args, what)}`;
  switch (command) {
    case "add": {
      const form = encodeURIComponent(need(flags.form, "--form FORMID"));
      if (args.length > 1) throw new UsageError(`Unexpected argument "${args[1]}"`);
      if (args[0] !== undefined && flags.target !== undefined) {
        throw new UsageError("Give the target URL once: TARGET_URL or --target");
      }
      const target = need(
        args[0] ?? flags.target,
        "TARGET_URL (or --target URL; --url is the instance's URL)",
      );
      const body = { ...await settingsBody(flags), url: target };
      const created = await client.call<Webhook>("POST", `/owner/forms/${form}/webhooks`, body);
      print(flags, created, () => webhookText(created));
      return 0;
    }
    case "list": {
      if (args.length) throw new UsageError(`Unexpected argument "${args[0]}"`);
      const form = encodeURIComponent(need(flags.form, "--form FORMID"));
      const { items } = await client.call<{ items: Webhook[] }>(
        "GET",
        `/owner/forms/${form}/webhooks`,
      );
      print(flags, items, () => items.map(webhookLine).join("\n") || "No webhooks");
      return 0;
    }
    case "show": {
      const path = hook();
      const webhook = await client.call<Webhook>("GET", path);
      const failed = await client.call<Page>("GET", `${path}/deliveries?failed=true&limit=20`);
      print(flags, { ...webhook, failedDeliveries: failed.items }, () => {
        const lines = failed.items.map((d) => `  ${deliveryLine(d)}`);
        if (failed.nextCursor) {
          lines.push(`  … more: sealpost deliveries list --webhook ${webhook.id} --failed`);
        }
        return `${webhookText(webhook)}\nfailed deliveries:${
          lines.length ? `\n${lines.join("\n")}` : " none"
        }`;
      });
      return 0;
    }
    case "edit": {
      const path = hook();
      const body = await settingsBody(flags);
      if (Object.keys(body).length === 0) {
        throw new UsageError("Nothing to change: give at least one setting");
      }
      const edited = await client.call<Webhook>("PATCH", path, body);
      print(flags, edited, () => webhookText(edited));
      return 0;
    }
    case "remove": {
      const id = args[0];
      await client.call("DELETE", hook());
      print(flags, { removed: id }, () => `Removed ${id}`);
      return 0;
    }
    case "test": {
      const path = `${hook()}/test`;
      const values = flags.values === undefined ? undefined : await readValues(flags.values);
      const result = await client.call<TestResult>(
        "POST",
        path,
        values === undefined ? undefined : { values },
      );
      print(flags, result, () => testText(result));
      return result.outcome === "delivered" ? 0 : 1;
    }
  }
  throw new UsageError(`Unknown command "webhook ${command}"`);
}

async function deliveriesRun(
  client: SealpostClient,
  command: string,
  args: string[],
  flags: Flags,
): Promise<number> {
  const webhook = () =>
    `/owner/webhooks/${encodeURIComponent(need(flags.webhook, "--webhook ID"))}`;
  switch (command) {
    case "list": {
      if (args.length) throw new UsageError(`Unexpected argument "${args[0]}"`);
      const query = new URLSearchParams({ limit: String(parseLimit(flags.limit, 50, 500)) });
      if (flags.failed) query.set("failed", "true");
      if (flags.cursor) query.set("cursor", flags.cursor);
      const page = await client.call<Page>("GET", `${webhook()}/deliveries?${query}`);
      print(flags, page, () => page.items.map(deliveryLine).join("\n") || "No deliveries");
      if (page.nextCursor && !flags.json) {
        console.error(`more: --cursor ${page.nextCursor}`);
      }
      return 0;
    }
    case "show": {
      const found = await client.call<{ delivery: Delivery; attempts: Attempt[] }>(
        "GET",
        `/owner/deliveries/${single(args, "DELIVERYID")}`,
      );
      print(flags, found, () => {
        const d = found.delivery;
        const lines = [deliveryLine(d), `  webhook ${d.webhookId}, created ${d.createdAt}`];
        if (d.nextAttemptAt) lines.push(`  next attempt ${d.nextAttemptAt}`);
        if (d.completedAt) lines.push(`  completed ${d.completedAt}`);
        lines.push(...found.attempts.map((a) => `  ${attemptLine(a)}`));
        if (found.attempts.length === 0) lines.push("  no attempts yet");
        return lines.join("\n");
      });
      return 0;
    }
    case "retry": {
      if (flags.webhook !== undefined) {
        if (args.length) throw new UsageError("Give DELIVERYID or --webhook ID --failed, not both");
        if (!flags.failed) {
          throw new UsageError("--webhook ID retries the failed deliveries: add --failed");
        }
        const { retried } = await client.call<{ retried: number }>(
          "POST",
          `${webhook()}/deliveries/retry`,
        );
        print(
          flags,
          { retried },
          () => `Re-queued ${retried} failed deliver${retried === 1 ? "y" : "ies"}`,
        );
        return 0;
      }
      if (flags.failed) throw new UsageError("--failed needs --webhook ID");
      const delivery = await client.call<Delivery>(
        "POST",
        `/owner/deliveries/${single(args, "DELIVERYID (or --webhook ID --failed)")}/retry`,
      );
      print(flags, delivery, () => `Re-queued ${delivery.id} (${delivery.status})`);
      return 0;
    }
  }
  throw new UsageError(`Unknown command "deliveries ${command}"`);
}

/**
 * Runs `sealpost <webhook|deliveries> ...`; resolves to the exit code.
 *
 * @example
 * ```ts
 * Deno.exit(await webhookCommand(["webhook", "list", "--form", "contact", "--json"]));
 * ```
 */
export function webhookCommand(args: string[]): Promise<number> {
  const group = args[0];
  return runOwnerGroup(args, HELP[group], OPTIONS, async (command, rest, flags) => {
    const allowed = COMMANDS[`${group} ${command}`];
    if (!allowed) throw new UsageError(`Unknown command "${group} ${command}"`);
    const stray = (Object.keys(flags) as Flag[]).find((name) =>
      !(name in OWNER_OPTIONS) && !allowed.includes(name)
    );
    if (stray) throw new UsageError(`--${stray} does not apply to "${group} ${command}"`);
    const client = await ownerClient(flags);
    return group === "webhook"
      ? await webhookRun(client, command, rest, flags)
      : await deliveriesRun(client, command, rest, flags);
  });
}
