/**
 * Flag parsing and failure reporting shared by the commands: strict `node:util` parseArgs,
 * the flags every command takes, usage on errors, `--help`, exit codes, and the server
 * configuration a local command reads from its flags.
 *
 * @module
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { type Config, loadConfig } from "../config/index.ts";
import { SealpostError, ValidationError } from "../sdk/mod.ts";
import { helpText } from "./program.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Parsed flags and positionals of a command's arguments. */
export type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>
>;

/**
 * parseArgs options of the flags `names`, all of `type`, for a command's options table.
 *
 * @example
 * ```ts
 * const options = { ...flagOptions("string", ["url", "token"]), json: { type: "boolean" } };
 * ```
 */
export function flagOptions<T extends "string" | "boolean", const N extends string>(
  type: T,
  names: N[],
): { [K in N]: { type: T } } {
  return Object.fromEntries(names.map((name) => [name, { type }])) as { [K in N]: { type: T } };
}

/** The flags every command takes: `--json` output and `-h`/`--help`. */
export const JSON_AND_HELP = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/**
 * Parses `args` against `options`. Returns the parsed flags, or the exit code when there is
 * nothing left to do: 2 after printing the error and `usage`, 0 after printing `usage` for
 * `--help` (when `options` has a `help` flag).
 *
 * @example
 * ```ts
 * const parsed = parseCommand(["--json"], { json: { type: "boolean" } }, "Usage: …");
 * if (typeof parsed === "number") Deno.exit(parsed);
 * ```
 */
export function parseCommand<O extends Options>(
  args: string[],
  options: O,
  usage: string,
): Parsed<O> | number {
  let parsed: Parsed<O>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true }) as Parsed<O>;
  } catch (err) {
    return usageFailure((err as Error).message, usage);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    return 0;
  }
  return parsed;
}

/**
 * Runs an SDK-backed command: parses `args` against `options` (`--help` prints the usage of
 * `help`), then `run` with the flags and positionals. Resolves to the exit code: 0 when `run`
 * is done, else as {@link parseCommand} and {@link reportFailure} say (JSON with `--json`).
 *
 * @example
 * ```ts
 * return await runCommand(args, { ...JSON_AND_HELP }, "Usage: sealpost ping", async () => {
 *   console.log("pong");
 * });
 * ```
 */
export async function runCommand<O extends Options>(
  args: string[],
  options: O,
  help: string,
  run: (parsed: Parsed<O>, json: boolean) => Promise<void>,
): Promise<number> {
  const usage = helpText(help);
  const parsed = parseCommand(args, options, usage);
  if (typeof parsed === "number") return parsed;
  const json = (parsed.values as { json?: boolean }).json === true;
  try {
    await run(parsed, json);
    return 0;
  } catch (e) {
    return reportFailure(e, json, usage);
  }
}

/**
 * Prints `message` and `usage` on stderr; returns the exit code of a usage error, 2.
 *
 * @example
 * ```ts
 * if (positionals.length > 0) return usageFailure("Unexpected arguments", usage);
 * ```
 */
export function usageFailure(message: string, usage: string): number {
  console.error(`${message}\n\n${usage}`);
  return 2;
}

/**
 * The server configuration a local command reads: `--config` (else SEALPOST_CONFIG), the
 * environment, and `--data`.
 *
 * @example
 * ```ts
 * const config = await localConfig({ config: "sealpost.toml", data: "./data" });
 * ```
 */
export function localConfig(flags: { config?: string; data?: string }): Promise<Config> {
  return loadConfig({ file: flags.config, env: Deno.env.toObject(), flags: { data: flags.data } });
}

/**
 * The value of flag `--name` as a whole number from 1 to `max`.
 *
 * @throws {UsageError} for anything else (`0`, `1.5`, `0x10`, over `max`).
 */
export function countFlag(name: string, value: string, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > max) {
    throw new UsageError(`Invalid --${name} "${value}": an integer, 1 to ${max}`);
  }
  return n;
}

/** A command was called wrongly (exit 2, with its usage). */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * The text of the file `path` given to `flag`, or of stdin when `path` is `-`.
 *
 * @throws {UsageError} when it cannot be read.
 */
export async function readInput(path: string, flag: string): Promise<string> {
  try {
    return path === "-"
      ? await new Response(Deno.stdin.readable).text()
      : await Deno.readTextFile(path);
  } catch (e) {
    throw new UsageError(`Cannot read ${flag} "${path}": ${(e as Error).message}`);
  }
}

/** The JSON error line a command prints with `--json`. */
export function errorJson(code: string, message: string, field?: string): string {
  return JSON.stringify({ error: field ? { code, message, field } : { code, message } });
}

/**
 * Reports a failed SDK-backed command on stderr (JSON with `--json`) and returns its exit
 * code: 2 for a {@link UsageError} (with `usage`), 1 for a refusal ({@link SealpostError},
 * listing each field of a {@link ValidationError}). Anything else is rethrown.
 */
export function reportFailure(err: unknown, json: boolean, usage: string): number {
  if (err instanceof UsageError) {
    console.error(json ? errorJson("usage", err.message) : `${err.message}\n\n${usage}`);
    return 2;
  }
  if (!(err instanceof SealpostError)) throw err;
  if (json) console.error(errorJson(err.code, err.message, err.field));
  else if (err instanceof ValidationError) {
    const lines = err.issues.map((i) => `  ${i.field || "values"}: ${i.message}`);
    console.error(`Refused (${err.code}):\n${lines.join("\n")}`);
  } else console.error(`Refused (${err.code}${err.field ? `, ${err.field}` : ""}): ${err.message}`);
  return 1;
}
