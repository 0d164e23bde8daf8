/**
 * The flags of `sealpost webhook|deliveries`: which command takes which, and how the settings
 * flags of `webhook add|edit` become the request body of the webhook owner API.
 *
 * @module
 */
import { MAX_WEBHOOK_CONCURRENCY } from "../config/index.ts";
import { countFlag, flagOptions, type Parsed, readInput, UsageError } from "./args.ts";
import { OWNER_OPTIONS } from "./owner.ts";

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

/** Every flag of the webhook and deliveries commands, for the argument parser. */
export const OPTIONS = {
  ...OWNER_OPTIONS,
  ...flagOptions("string", [...SETTING_STRINGS, "form", "values", "webhook", "limit", "cursor"]),
  ...flagOptions("boolean", [...SETTING_BOOLEANS, ...REMOVALS, "failed"]),
  header: { type: "string", multiple: true },
  map: { type: "string", multiple: true },
} as const;

/** The parsed flags. */
export type Flags = Parsed<typeof OPTIONS>["values"];
/** The name of one flag. */
export type Flag = keyof typeof OPTIONS;

const SETTINGS: Flag[] = [...SETTING_STRINGS, ...SETTING_BOOLEANS, "header", "map"];

/** The flags each command takes besides the common ones. */
export const COMMANDS: Record<string, Flag[]> = {
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

/**
 * The request body of `add` or `edit`: the settings given, nothing else.
 *
 * @example
 * ```ts
 * const body = await settingsBody(flags); // e.g. { method: "PUT", events: ["create"] }
 * ```
 */
export async function settingsBody(flags: Flags): Promise<Record<string, unknown>> {
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
