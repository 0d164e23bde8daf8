/**
 * Loads the configuration: defaults < TOML file < `SEALPOST_*` environment < flags.
 *
 * @module
 */
import { parse as parseToml } from "smol-toml";
import { type Config, ConfigSchema } from "./schema.ts";

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

/** Each leaf of the default configuration: its dotted path and its environment variable. */
export function configKeys(): { path: string[]; env: string; sample: unknown }[] {
  const out: { path: string[]; env: string; sample: unknown }[] = [];
  const walk = (node: Tree, path: string[]) => {
    for (const [key, value] of Object.entries(node)) {
      if (value !== null && typeof value === "object") walk(value as Tree, [...path, key]);
      else out.push({ path: [...path, key], env: envName([...path, key]), sample: value });
    }
  };
  walk(ConfigSchema.parse({}) as Tree, []);
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

function fromEnv(raw: string, sample: unknown, name: string): unknown {
  if (typeof sample === "number") {
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(n)) {
      throw new ConfigError(`Invalid ${name}="${raw}": expected a number`);
    }
    return n;
  }
  if (typeof sample === "boolean") {
    if (raw === "true" || raw === "1") return true;
    if (raw === "false" || raw === "0") return false;
    throw new ConfigError(`Invalid ${name}="${raw}": expected true or false`);
  }
  return raw;
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
  for (const key of configKeys()) {
    const raw = env[key.env];
    if (raw !== undefined) setPath(tree, key.path, fromEnv(raw, key.sample, key.env));
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

/** The base URL clients use to reach this instance. */
export function publicBaseUrl(config: Config, port = config.server.port): string {
  if (config.base_url) return config.base_url.replace(/\/+$/, "");
  const host = config.server.host.includes(":") ? `[${config.server.host}]` : config.server.host;
  const shown = host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host;
  return `http://${shown}:${port}`;
}
