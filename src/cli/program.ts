/**
 * How to run this program again, for the commands it prints as hints and in its help.
 *
 * @module
 */
import { basename, isAbsolute, relative } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The variable the `start` and `sealpost` tasks of deno.json set to `task sealpost`: the program
 * was started by `deno task`, so the way to run it again is that task, whatever the working folder.
 */
export const INVOKED_AS_VARIABLE = "SEALPOST_INVOKED_AS";

/**
 * The command line that runs this program, in the form it was started:
 * `npx -y deno@2.9.6 task sealpost` through the deno task under `npx` (`deno task sealpost` with a
 * Deno of one's own), `deno run -A main.ts` from the sources, `deno run -A --unstable-kv
 * sealpost.js` from the single-file bundle (each with `npx -y deno@VERSION` for `deno` when that
 * Deno came from `npx`), the binary itself when compiled (its executable is not `deno`). Paths are
 * relative to `cwd`.
 *
 * @example
 * ```ts
 * console.log(`then: ${programCommand()} records list ${formId}`);
 * ```
 */
export function programCommand(
  mainModule: string = Deno.mainModule,
  cwd: string = Deno.cwd(),
  execPath: string = Deno.execPath(),
  invokedAs: string | undefined = Deno.env.get(INVOKED_AS_VARIABLE),
): string {
  const exe = basename(execPath);
  if (exe !== "deno" && exe !== "deno.exe") return execPath;
  // npx keeps the binary it fetched under its cache's _npx folder; only npx runs it again there.
  const deno = /[\\/]_npx[\\/]/.test(execPath) ? `npx -y deno@${Deno.version.deno}` : "deno";
  if (invokedAs) return `${deno} ${invokedAs}`;
  const path = mainModule.startsWith("file:")
    ? shownPath(fileURLToPath(mainModule), cwd)
    : mainModule;
  return path.endsWith(".js") ? `${deno} run -A --unstable-kv ${path}` : `${deno} run -A ${path}`;
}

/**
 * `file` as a command line shows it: relative to `cwd` when it lies below it, else absolute (a
 * service started in `/`, or from another folder, prints `/opt/sealpost/sealpost.js`, not
 * `opt/sealpost/sealpost.js` or `../../opt/…`).
 */
function shownPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return cwd === "/" || rel.startsWith("..") || isAbsolute(rel) ? file : rel;
}

/**
 * A command's help (which names the program `sealpost`) followed by how to run `sealpost` here,
 * so every line of it can be typed as printed.
 *
 * @example
 * ```ts
 * console.log(helpText("Usage: sealpost backup --out FILE\n"));
 * ```
 */
export function helpText(help: string, program: string = programCommand()): string {
  return `${help.trimEnd()}\n\nRun "sealpost" here as: ${program}`;
}
