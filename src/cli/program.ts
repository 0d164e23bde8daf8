/**
 * How to run this program again, for the commands it prints as hints.
 *
 * @module
 */
import { basename, relative } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The command line that runs this program: `deno run -A main.ts` from the sources,
 * `deno run -A --unstable-kv sealpost.js` from the single-file bundle, the binary itself when
 * compiled (its executable is not `deno`). Paths are relative to `cwd`.
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
): string {
  const exe = basename(execPath);
  if (exe !== "deno" && exe !== "deno.exe") return execPath;
  const path = mainModule.startsWith("file:")
    ? relative(cwd, fileURLToPath(mainModule))
    : mainModule;
  return path.endsWith(".js") ? `deno run -A --unstable-kv ${path}` : `deno run -A ${path}`;
}
