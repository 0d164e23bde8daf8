/**
 * Loads the configuration: defaults < TOML file < `SEALPOST_*` environment < flags.
 *
 * @module
 */
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { type Config, ConfigSchema, tlsEnabled } from "./schema.ts";

/** A configuration value is invalid; the message names the key. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Where the configuration comes from; every part is optional. */
export interface ConfigSources {
  /** Path of a TOML file (`--config` or `SEALPOST_CONFIG`). */
  file?: string;
  /** Environment variables, usually `Deno.env.toObject()`. */
  env?: Record<string, string>;
  /** Values from command-line flags, highest precedence. */
  flags?: { data?: string; host?: string; port?: number };
}

type Tree = { [key: string]: unknown };

/** How the text of one environment variable becomes a value. */
type Scalar = "number" | "boolean" | "string";

/**
 * How a key is read from its environment variable, derived from its schema: a number, a boolean,
 * a string (passed as is; the schema checks enums and URLs), a list, or `json` for other
 * structured values (records, tuples) that only have a JSON form.
 */
export type EnvKind = Scalar | "json" | { list: Scalar | "json" };

/** One settable key: its dotted path, its environment variable, its default and its kind. */
export interface ConfigKey {
  path: string[];
  env: string;
  /** The default value, or `undefined` when the key has none. */
  sample: unknown;
  kind: EnvKind;
}

/** The schema inside defaults, prefaults, optionals and nullables. */
function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  while (
    schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault ||
    schema instanceof z.ZodOptional || schema instanceof z.ZodNullable
  ) schema = schema.unwrap();
  return schema;
}

/** A value with inner structure: it has no plain-text form, only a JSON one. */
function structured(schema: z.core.$ZodType): boolean {
  return schema instanceof z.ZodObject || schema instanceof z.ZodArray ||
    schema instanceof z.ZodRecord || schema instanceof z.ZodTuple;
}

function scalarKind(schema: z.core.$ZodType): Scalar | "json" {
  if (schema instanceof z.ZodNumber) return "number";
  if (schema instanceof z.ZodBoolean) return "boolean";
  return structured(schema) ? "json" : "string";
}

/**
 * Every settable key of a schema (default: the configuration's), found by walking its objects:
 * each leaf is one key, and a list (`z.array`) is one key whose items come in one variable.
 */
export function configKeys(schema: z.core.$ZodType = ConfigSchema): ConfigKey[] {
  const defaults = z.safeParse(schema, {});
  const out: ConfigKey[] = [];
  const walk = (node: z.core.$ZodType, path: string[], sample: unknown) => {
    const inner = unwrap(node);
    if (inner instanceof z.ZodObject) {
      for (const [key, child] of Object.entries(inner.shape)) {
        const value = (sample as Tree | undefined)?.[key];
        walk(child as z.core.$ZodType, [...path, key], value);
      }
      return;
    }
    const kind: EnvKind = inner instanceof z.ZodArray
      ? { list: scalarKind(unwrap(inner.element)) }
      : scalarKind(inner);
    out.push({ path, env: envName(path), sample, kind });
  };
  walk(schema, [], defaults.success ? defaults.data : undefined);
  return out;
}

function envName(path: string[]): string {
  return "SEALPOST_" + path.join("_").toUpperCase();
}

function setPath(tree: Tree, path: string[], value: unknown) {
  let node = tree;
  for (const key of path.slice(0, -1)) {
    if (node[key] === undefined || typeof node[key] !== "object") node[key] = {};
    node = node[key] as Tree;
  }
  node[path[path.length - 1]] = value;
}

const EXPECTED: Record<Scalar, string> = {
  number: "a number",
  boolean: "true or false",
  string: "a string",
};

/** Text to scalar; `undefined` when the text is not one. */
function scalar(text: string, kind: Scalar): unknown {
  if (kind === "number") {
    const n = Number(text);
    return text.trim() === "" || !Number.isFinite(n) ? undefined : n;
  }
  if (kind === "boolean") {
    if (text === "true" || text === "1") return true;
    if (text === "false" || text === "0") return false;
    return undefined;
  }
  return text;
}

function parseJson(raw: string, name: string, what: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new ConfigError(`Invalid ${name}='${raw}': expected ${what}: ${(err as Error).message}`);
  }
}

/**
 * The value of one environment variable, converted as its key's kind says. A list is either
 * a JSON array (the value starts with `[`) or items separated by commas, each trimmed and
 * converted like a scalar; an empty or blank value is the empty list. The schema then checks
 * the result exactly as it checks the same value from the TOML file.
 *
 * @throws {ConfigError} naming the variable when the text is not of the key's kind.
 */
export function fromEnv(raw: string, key: ConfigKey): unknown {
  const name = key.env;
  const kind = key.kind;
  if (kind === "json") return parseJson(raw, name, "JSON");
  if (typeof kind === "string") {
    const value = scalar(raw, kind);
    if (value === undefined) {
      throw new ConfigError(`Invalid ${name}="${raw}": expected ${EXPECTED[kind]}`);
    }
    return value;
  }
  if (raw.trimStart().startsWith("[")) {
    const value = parseJson(raw, name, "a JSON array");
    if (!Array.isArray(value)) {
      throw new ConfigError(`Invalid ${name}='${raw}': expected a JSON array`);
    }
    return value;
  }
  const itemKind = kind.list;
  if (itemKind === "json") {
    throw new ConfigError(
      `Invalid ${name}="${raw}": expected a JSON array (its items have no comma-separated form)`,
    );
  }
  if (raw.trim() === "") return [];
  return raw.split(",").map((text, i) => {
    const item = text.trim();
    const value = item === "" ? undefined : scalar(item, itemKind);
    if (value === undefined) {
      const got = item === "" ? "is empty" : `is "${item}"`;
      throw new ConfigError(
        `Invalid ${name}="${raw}": item ${i + 1} ${got}, expected ${EXPECTED[itemKind]}` +
          (itemKind === "string" ? " (use a JSON array for empty strings)" : ""),
      );
    }
    return value;
  });
}

/**
 * A list is set whole, in its own variable. One variable per entry (`SEALPOST_..._0`), which
 * was read before lists had a form of their own, is refused rather than silently ignored.
 */
function refuseEntryVariables(keys: ConfigKey[], env: Record<string, string>) {
  const known = new Set(keys.map((key) => key.env));
  for (const key of keys) {
    if (typeof key.kind !== "object") continue;
    const entry = new RegExp(`^${key.env}_\\d+$`);
    const stray = Object.keys(env).find((name) => entry.test(name) && !known.has(name));
    if (stray) {
      throw new ConfigError(
        `${stray} is not read: set the whole list in ${key.env}, ` +
          "as a JSON array or as items separated by commas",
      );
    }
  }
}

/** Keys that were removed, and what replaced them. */
const REMOVED: { path: string[]; instead: string }[] = [{
  path: ["server", "trust_proxy"],
  instead: "server.trusted_proxies (a list of proxy addresses or CIDRs, e.g. " +
    '["127.0.0.1", "10.0.0.0/8"]; the left-most X-Forwarded-For hop is client-controlled)',
}];

/** A removed key (in the file or the environment) is an error naming its replacement. */
function refuseRemovedKeys(tree: Tree, env: Record<string, string>) {
  for (const { path, instead } of REMOVED) {
    const section = path.slice(0, -1).reduce<unknown>((node, key) => (node as Tree)?.[key], tree);
    const name = envName(path);
    if ((section as Tree | undefined)?.[path[path.length - 1]] !== undefined || name in env) {
      throw new ConfigError(`Config key ${path.join(".")} (${name}) was removed: use ${instead}`);
    }
  }
}

/**
 * `SEALPOST_*` variables read outside the configuration: the file's path, the vault's key
 * passphrase and relay token, the command-line client's URL and token, the short name of
 * `SEALPOST_STORE_POSTGRES_URL`, and how the deno tasks started the program (src/cli/program.ts).
 */
export const OTHER_VARIABLES: readonly string[] = [
  "SEALPOST_CONFIG",
  "SEALPOST_PASSPHRASE",
  "SEALPOST_RELAY_TOKEN",
  "SEALPOST_URL",
  "SEALPOST_TOKEN",
  "SEALPOST_POSTGRES_URL",
  "SEALPOST_INVOKED_AS",
];

/** Short names of settings' variables; the setting's own variable wins when both are set. */
const ALIASES: Record<string, string> = {
  SEALPOST_STORE_POSTGRES_URL: "SEALPOST_POSTGRES_URL",
};

/**
 * The `SEALPOST_*` variables of `env` that nothing reads (a misspelt setting, say), sorted:
 * `serve` warns about them rather than ignoring them silently.
 *
 * @example
 * ```ts
 * unknownVariables({ SEALPOST_SERVER_PROT: "80" }); // ["SEALPOST_SERVER_PROT"]
 * ```
 */
export function unknownVariables(env: Record<string, string>): string[] {
  const known = new Set([...configKeys().map((key) => key.env), ...OTHER_VARIABLES]);
  return Object.keys(env).filter((name) => name.startsWith("SEALPOST_") && !known.has(name))
    .sort();
}

/**
 * Merges the sources and validates the result.
 *
 * @example
 * ```ts
 * const config = await loadConfig({ env: Deno.env.toObject(), flags: { port: 9000 } });
 * ```
 * @throws {ConfigError} naming the first invalid key.
 */
export async function loadConfig(sources: ConfigSources = {}): Promise<Config> {
  const env = sources.env ?? {};
  const file = sources.file ?? env.SEALPOST_CONFIG;
  let tree: Tree = {};
  if (file) {
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (err) {
      throw new ConfigError(`Cannot read config file ${file}: ${(err as Error).message}`);
    }
    try {
      tree = parseToml(text) as Tree;
    } catch (err) {
      throw new ConfigError(`Invalid TOML in ${file}: ${(err as Error).message}`);
    }
  }
  const keys = configKeys();
  refuseEntryVariables(keys, env);
  refuseRemovedKeys(tree, env);
  for (const key of keys) {
    const alias = ALIASES[key.env];
    const raw = env[key.env] ?? (alias === undefined ? undefined : env[alias]);
    if (raw !== undefined) setPath(tree, key.path, fromEnv(raw, key));
  }
  const flags = sources.flags ?? {};
  if (flags.data !== undefined) tree.data_dir = flags.data;
  if (flags.host !== undefined) setPath(tree, ["server", "host"], flags.host);
  if (flags.port !== undefined) setPath(tree, ["server", "port"], flags.port);
  const parsed = ConfigSchema.safeParse(tree);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue.path.join(".") || "(root)";
    const extra = issue.code === "unrecognized_keys" ? ` ${issue.keys.join(", ")}` : "";
    throw new ConfigError(`Invalid config key ${key}: ${issue.message}${extra}`);
  }
  return parsed.data;
}

/**
 * The base URL clients use to reach this instance: `base_url`, else the listening address,
 * `https://` with TLS on (the first ACME domain, if any, as the host; no port when it is 443).
 *
 * @example
 * ```ts
 * publicBaseUrl(config, 8080); // "http://127.0.0.1:8080"
 * publicBaseUrl(acmeConfig, 443); // "https://forms.example.org"
 * ```
 */
export function publicBaseUrl(config: Config, port = config.server.port): string {
  if (config.base_url) return config.base_url.replace(/\/+$/, "");
  const { tls } = config.server;
  if (tlsEnabled(tls)) {
    const shown = tls.acme.enabled ? tls.acme.domains[0] : shownHost(config.server.host);
    return `https://${shown}${port === 443 ? "" : `:${port}`}`;
  }
  return `http://${shownHost(config.server.host)}:${port}`;
}

/** The listening host as a URL shows it (a wildcard address as loopback). */
function shownHost(configured: string): string {
  const host = configured.includes(":") ? `[${configured}]` : configured;
  return host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host;
}
