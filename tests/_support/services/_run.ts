/**
 * What the dev/test service scripts share: the folder they keep their state in, commands run
 * with a time limit, waiting for a condition, and small state files.
 */
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root (three folders up from here). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/**
 * Where the services of this checkout keep their data, logs and state: a folder of the system's
 * temporary space named after the checkout, so two checkouts never share (or stop) each
 * other's services. `SERVICES_DIR` overrides it.
 */
export function servicesDir(): string {
  const override = Deno.env.get("SERVICES_DIR");
  if (override) return override;
  const tag = createHash("sha256").update(REPO_ROOT).digest("hex").slice(0, 10);
  return join(Deno.env.get("TMPDIR") ?? "/tmp", `sealpost-services-${tag}`);
}

/** Runs a command (bounded by `timeoutMs`); its output, or an error naming it and its stderr. */
export async function run(
  command: string,
  args: string[],
  options: { timeoutMs?: number; cwd?: string; allowFailure?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
  }).output();
  const result = {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
  if (!out.success && !options.allowFailure) {
    throw new Error(
      `"${command} ${args.join(" ")}" failed (exit ${out.code}${
        out.signal ? `, ${out.signal}` : ""
      }):\n` +
        (result.stderr || result.stdout).slice(-2000),
    );
  }
  return result;
}

/** Polls `check` every 200 ms until it is true; throws `what` after `timeoutMs`. */
export async function until(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} within ${timeoutMs / 1000} s`);
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Whether `port` on 127.0.0.1 can be listened on now. */
export function portIsFree(port: number): boolean {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return true;
  } catch {
    return false;
  }
}

/** Reads a JSON state file, or null when there is none. */
export async function readState<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await Deno.readTextFile(path)) as T;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

/** Sends SIGTERM to the process in `pidFile` and waits (bounded) for it to go; SIGKILL then. */
export async function stopPidFile(pidFile: string): Promise<void> {
  let pid: number;
  try {
    pid = Number((await Deno.readTextFile(pidFile)).trim());
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw err;
  }
  if (!Number.isInteger(pid) || pid <= 1) return;
  const alive = () => {
    try {
      Deno.kill(pid, "SIGCONT");
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  Deno.kill(pid, "SIGTERM");
  const end = Date.now() + 15_000;
  while (alive() && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  if (alive()) Deno.kill(pid, "SIGKILL");
}

/** Seconds per named step: `step(name)` records the time since the previous step (or start). */
export function stepTimer(): { timings: Record<string, number>; step(name: string): void } {
  const timings: Record<string, number> = {};
  let last = performance.now();
  return {
    timings,
    step(name: string) {
      const now = performance.now();
      timings[name] = Math.round(now - last) / 1000;
      last = now;
    },
  };
}
