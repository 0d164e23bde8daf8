/**
 * `deno task bundle`: the whole program as one self-contained JavaScript file,
 * `dist/sealpost.js`, run with `deno run -A --unstable-kv dist/sealpost.js <command>`.
 *
 * `deno bundle` does not follow `new Worker(new URL(…))`, so each worker ({@link WORKERS}: the
 * vault's opener, the password hasher) is bundled first, and the module that locates it is
 * mapped (through a generated import map) to a module that holds that code as a string and
 * starts it from a `blob:` URL. The output is checked: no `npm:` import and no reference to a
 * source file is left in it.
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

/** A worker module and the module that locates it (exporting `locator()`, a URL string). */
interface WorkerEntry {
  worker: string;
  locatorModule: string;
  locator: string;
}

/** Every worker the program starts. */
export const WORKERS: readonly WorkerEntry[] = [
  {
    worker: "src/vault/open_worker.ts",
    locatorModule: "src/vault/open_worker_url.ts",
    locator: "openWorkerUrl",
  },
  {
    worker: "src/people/password_worker.ts",
    locatorModule: "src/people/password_worker_url.ts",
    locator: "passwordWorkerUrl",
  },
];

/** The module that replaces a worker's locator in the bundle: the worker's code, inline. */
function embeddedWorkerModule(locator: string, workerCode: string): string {
  return `const CODE = ${JSON.stringify(workerCode)};
let url;
export function ${locator}() {
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
    const mapped: Record<string, string> = {};
    for (const { worker, locatorModule, locator } of WORKERS) {
      const name = worker.replace(/^.*\//, "").replace(/\.ts$/, "");
      const workerJs = join(work, `${name}.js`);
      await denoBundle(["--output", workerJs, worker]);
      const embedded = join(work, `${name}_url.js`);
      const code = await Deno.readTextFile(workerJs);
      await Deno.writeTextFile(embedded, embeddedWorkerModule(locator, code));
      mapped[new URL(locatorModule, ROOT).href] = `file://${embedded}`;
    }
    const config = JSON.parse(await Deno.readTextFile(path("deno.json")));
    const importMap = join(work, "import_map.json");
    await Deno.writeTextFile(
      importMap,
      JSON.stringify({ imports: { ...config.imports, ...mapped } }),
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
