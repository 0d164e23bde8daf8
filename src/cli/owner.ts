/**
 * What the owner command groups share (`db`, `form`, `records`, `quarantine`, each in its
 * module; `webhook`, `deliveries` in webhook.ts): the common flags and their help, the owner
 * client, output, and one run wrapper with the exit codes (0 done, 1 refused by the API, 2
 * usage).
 *
 * @module
 */
import type { ParseArgsConfig } from "node:util";
import {
  countFlag,
  errorJson,
  flagOptions,
  parseCommand,
  type Parsed,
  UsageError,
  usageFailure,
} from "./args.ts";
import { ApiCallError, SealpostClient } from "./client.ts";
import { helpText } from "./program.ts";

/** The flags every owner command takes. */
export const OWNER_OPTIONS = {
  ...flagOptions("string", ["url", "token", "data"]),
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** The help of {@link OWNER_OPTIONS}, appended to each group's help. */
export const OWNER_HELP = `
Common options:
  --url URL      Instance (also SEALPOST_URL, else the data dir's credentials)
  --token TOKEN  Owner token (also SEALPOST_TOKEN, else the data dir's credentials)
  --data DIR     Data dir holding credentials.json (default ./data)
  --json         Print JSON
  -h, --help     Show this help
`;

/** The common flags as parsed. */
export interface OwnerFlags {
  url?: string;
  token?: string;
  data?: string;
  json?: boolean;
}

/** `value`, or a usage error naming `what` is missing. */
export function need(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`Missing ${what}`);
  return value;
}

/** Prints `data` as one JSON line with `--json`, else `text()`. */
export function print(flags: OwnerFlags, data: unknown, text: () => string): void {
  console.log(flags.json ? JSON.stringify(data) : text());
}

/** `--limit` as an integer from 1 to `max` (`fallback` when not given). */
export function parseLimit(value: string | undefined, fallback: number, max: number): number {
  return countFlag("limit", value ?? String(fallback), max);
}

/** The client of the instance the flags name, with the owner token. */
export function ownerClient(flags: OwnerFlags): Promise<SealpostClient> {
  return SealpostClient.resolve({
    url: flags.url,
    token: flags.token,
    data: flags.data,
    role: "owner",
  });
}

/** Runs one command of a group: its name, the positionals after it, the flags. */
export type OwnerRun<O extends NonNullable<ParseArgsConfig["options"]>> = (
  command: string,
  args: string[],
  flags: Parsed<O>["values"],
) => Promise<number>;

/**
 * Runs `sealpost <group> <command> ...` (`args` starts with the group): parses `options`
 * (which include {@link OWNER_OPTIONS}), prints `help` (plus the common options) for
 * `--help`, and turns a {@link UsageError} into exit 2 with the help and an
 * {@link ApiCallError} into exit 1 with its message (a JSON error line with `--json`).
 *
 * @example
 * ```ts
 * const code = await runOwnerGroup(["db", "list"], "Usage: sealpost db …", OWNER_OPTIONS,
 *   async (command, args, flags) => 0);
 * ```
 */
export async function runOwnerGroup<O extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  help: string,
  options: O,
  run: OwnerRun<O>,
): Promise<number> {
  const usage = helpText(help + OWNER_HELP);
  const parsed = parseCommand(args.slice(1), options, usage);
  if (typeof parsed === "number") return parsed;
  const { values: flags, positionals } = parsed;
  const json = (flags as OwnerFlags).json === true;
  try {
    if (positionals.length === 0) throw new UsageError("Missing command");
    return await run(positionals[0], positionals.slice(1), flags);
  } catch (err) {
    if (err instanceof UsageError) return usageFailure(err.message, usage);
    if (err instanceof ApiCallError) {
      // The field the API names, unless its message already does ("Invalid url: …",
      // "Unknown field \"color\"").
      const named = !err.field || err.message.startsWith(`Invalid ${err.field}:`) ||
        err.message.includes(`"${err.field}"`);
      console.error(
        json
          ? errorJson(err.code, err.message, err.field)
          : named
          ? err.message
          : `${err.field}: ${err.message}`,
      );
      return 1;
    }
    throw err;
  }
}
