/**
 * `deno task bundle`: the whole program as one self-contained JavaScript file,
 * `dist/sealpost.js`, run with `deno run -A --unstable-kv dist/sealpost.js <command>`.
 *
 * `deno bundle` does not follow `new Worker(new URL(…))`, so the vault's opener worker is
 * bundled first, and `src/vault/open_worker_url.ts` is mapped (through a generated import map)
 * to a module that holds that code as a string and starts it from a `blob:` URL. The output is
 * checked: no `npm:` import and no reference to a source file is left in it.
 *
 * Usage: `deno run -A src/build/bundle.ts [--output FILE]` (default `dist/sealpost.js`).
 *
 * @module
 */
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";

const ROOT = new URL("../../", import.meta.url);
const path = (relative: string) => new URL(relative, ROOT).pathname;

/** The default output, relative to the repository root. */
export const BUNDLE_OUTPUT = "dist/sealpost.js";

async function denoBundle(args: string[]): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform", "deno", ...args],
    cwd: path("."),
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `deno bundle ${args.join(" ")} failed:\n${new TextDecoder().decode(out.stderr)}`,
    );
  }
}

/** The module that replaces `open_worker_url.ts` in the bundle: the worker's code, inline. */
function embeddedWorkerModule(workerCode: string): string {
  return `const CODE = ${JSON.stringify(workerCode)};
let url;
export function openWorkerUrl() {
  return url ??= URL.createObjectURL(new Blob([CODE], { type: "text/javascript" }));
}
`;
}

/**
 * What a finished bundle must not contain, or an empty list: `npm:` imports and references to
 * the source tree's files.
 *
 * @example
 * ```ts
 * if (leftovers(await Deno.readTextFile("dist/sealpost.js")).length) throw new Error("not self-contained");
 * ```
 */
export function leftovers(code: string): string[] {
  const found: string[] = [];
  for (const m of code.matchAll(/\b(?:import|from|import\()\s*["'](npm:[^"']+)["']/g)) {
    found.push(m[1]);
  }
  for (const m of code.matchAll(/["'](\.{1,2}\/[\w./-]+\.ts)["']/g)) found.push(m[1]);
  return found;
}

/**
 * Builds the single-file bundle at `output` (a path relative to the repository root or
 * absolute) and returns its size in bytes.
 *
 * @example
 * ```ts
 * await buildBundle("dist/sealpost.js");
 * ```
 */
export async function buildBundle(output: string = BUNDLE_OUTPUT): Promise<number> {
  const target = output.startsWith("/") ? output : path(output);
  // Beside the output, so the paths the bundler writes into its comments stay the same.
  const work = join(dirname(target), ".bundle-work");
  await Deno.mkdir(work, { recursive: true });
  try {
    const workerJs = join(work, "open_worker.js");
    await denoBundle(["--output", workerJs, "src/vault/open_worker.ts"]);
    const embedded = join(work, "open_worker_url.js");
    await Deno.writeTextFile(embedded, embeddedWorkerModule(await Deno.readTextFile(workerJs)));
    const config = JSON.parse(await Deno.readTextFile(path("deno.json")));
    const importMap = join(work, "import_map.json");
    await Deno.writeTextFile(
      importMap,
      JSON.stringify({
        imports: {
          ...config.imports,
          [new URL("src/vault/open_worker_url.ts", ROOT).href]: `file://${embedded}`,
        },
      }),
    );
    await denoBundle(["--import-map", importMap, "--output", target, "main.ts"]);
    const code = await Deno.readTextFile(target);
    const left = leftovers(code);
    if (left.length > 0) {
      throw new Error(`${target} is not self-contained; it still refers to ${left.join(", ")}`);
    }
    return (await Deno.stat(target)).size;
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { output: { type: "string" } } });
  const output = values.output ?? BUNDLE_OUTPUT;
  const bytes = await buildBundle(output);
  console.log(`${output}: ${(bytes / 1024 / 1024).toFixed(2)} MB, one file`);
}
