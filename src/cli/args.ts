/**
 * Flag parsing shared by every command: strict `node:util` parseArgs, usage on errors,
 * `--help`.
 *
 * @module
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Parsed flags and positionals of a command's arguments. */
export type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>
>;

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
    console.error(`${(err as Error).message}\n\n${usage}`);
    return 2;
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    return 0;
  }
  return parsed;
}
