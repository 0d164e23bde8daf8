/**
 * Where the password hasher's worker module lives. From the sources, and in a `deno compile`
 * binary (which embeds the file with `--include`), that is `password_worker.ts` beside this
 * module. A `deno bundle` output has no files beside it, so `deno task bundle`
 * (src/build/bundle.ts) puts a generated module in this one's place that carries the worker's
 * bundled code and serves it from a `blob:` URL.
 *
 * @module
 */

/**
 * The URL to start the password hasher's worker from.
 *
 * @example
 * ```ts
 * const worker = new Worker(passwordWorkerUrl(), { type: "module" });
 * ```
 */
export function passwordWorkerUrl(): string {
  return new URL("./password_worker.ts", import.meta.url).href;
}
