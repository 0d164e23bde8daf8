/**
 * What the deployment kit's tests share (docs/deploy/): reading unit files and the
 * Containerfile, one bundle built per test process, and the bundle's commands run as an
 * operator runs them (the file alone in a folder, an empty Deno cache, no SEALPOST_* from the
 * caller).
 */
import { join } from "node:path";
import { buildBundle } from "../../src/build/bundle.ts";

/** The kit's folder. */
export const KIT = new URL("../../docs/deploy/", import.meta.url).pathname;

/** A unit file's settings: section → key → values in order (a key may repeat). */
export type UnitFile = Map<string, Map<string, string[]>>;

/**
 * Parses a systemd unit file (comments, sections, `Key=value`; no line continuations, which
 * the kit does not use).
 */
export function parseUnit(text: string): UnitFile {
  const unit: UnitFile = new Map();
  let section = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1];
      unit.set(section, unit.get(section) ?? new Map());
      continue;
    }
    const eq = line.indexOf("=");
    if (eq < 0) throw new Error(`Not a setting: ${line}`);
    const key = line.slice(0, eq).trim();
    const values = unit.get(section)!;
    values.set(key, [...values.get(key) ?? [], line.slice(eq + 1).trim()]);
  }
  return unit;
}

/** The last value of `key` in `section` (what systemd applies for single-valued keys). */
export function setting(unit: UnitFile, section: string, key: string): string | undefined {
  return unit.get(section)?.get(key)?.at(-1);
}

/** Splits an ExecStart= value into arguments (systemd's quoting: '…' and "…"; %% is %). */
export function execArgs(value: string): string[] {
  const args: string[] = [];
  const re = /'([^']*)'|"([^"]*)"|(\S+)/g;
  for (const m of value.matchAll(re)) args.push((m[1] ?? m[2] ?? m[3]).replaceAll("%%", "%"));
  return args;
}

let bundled: Promise<string> | null = null;

/** `dist/sealpost.js` as `deno task bundle` builds it, once per test process, in a temp dir. */
export function bundle(): Promise<string> {
  bundled ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "sealpost-kit-bundle-" });
    const file = join(dir, "sealpost.js");
    await buildBundle(file);
    return file;
  })();
  return bundled;
}

/** The caller's environment without `SEALPOST_*`, plus `env`. */
export function operatorEnv(env: Record<string, string> = {}): Record<string, string> {
  const inherited = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([key]) => !key.startsWith("SEALPOST_")),
  );
  return { ...inherited, ...env };
}

/** Runs `command args` to its end; returns exit code and output. */
export async function run(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; stdin?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = new Deno.Command(command, {
    args,
    cwd: options.cwd,
    clearEnv: options.env !== undefined,
    env: options.env,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const out = await child.output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** Polls `url` until it answers 200 (bounded), returning the body. */
export async function waitHealthy(url: string, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      const body = await response.text();
      if (response.ok) return body;
      last = `HTTP ${response.status} ${body}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms: ${last}`);
}

/** Reads a child's stdout and stderr as they come; the result returns what was read so far. */
export function collectOutput(child: Deno.ChildProcess): () => string {
  let text = "";
  const collect = async (stream: ReadableStream<Uint8Array<ArrayBuffer>>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  };
  void collect(child.stdout);
  void collect(child.stderr);
  return () => text;
}
