/**
 * A machine with only Node.js, for tests/docs/printed_commands_test.ts: a copy of the project
 * in a temporary folder, a PATH with no `deno` on it (`npx` from Node.js fetches the pinned
 * Deno, from the npm cache here), and shell scripts run there as a user would type them.
 *
 * @module
 */
import { join } from "node:path";

const ROOT = new URL("../../", import.meta.url).pathname;

/** What the project's copy holds: what `task start`, `task sealpost` and the docs read. */
const PROJECT = ["main.ts", "deno.json", "deno.lock", "config.example.toml", "src", "docs"];

/** The pinned Deno of the README's commands (from `.ci/run`). */
export async function pinnedDeno(): Promise<string> {
  const ci = await Deno.readTextFile(join(ROOT, ".ci/run"));
  return /^DENO_VERSION=(\S+)$/m.exec(ci)![1];
}

/**
 * The caller's environment without `SEALPOST_*` and with a PATH that has no `deno`: a folder on
 * the PATH that holds one is replaced by `binDir`, given links to everything else in it (npm's
 * global `deno` may sit beside `node` and `npx`).
 */
export function nodeOnlyEnv(binDir: string): Record<string, string> {
  const path: string[] = [];
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir === "" || !exists(join(dir, "deno"))) {
      if (dir !== "") path.push(dir);
      continue;
    }
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.name !== "deno" && !exists(join(binDir, entry.name))) {
        Deno.symlinkSync(join(dir, entry.name), join(binDir, entry.name));
      }
    }
    if (!path.includes(binDir)) path.push(binDir);
  }
  const env = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([key]) => !key.startsWith("SEALPOST_")),
  );
  return { ...env, PATH: path.join(":"), NO_COLOR: "1" };
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A fresh copy of the project (no data dir), removed by the caller. */
export async function projectCopy(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-node-only-" });
  const cp = await new Deno.Command("cp", {
    args: ["-r", ...PROJECT.map((p) => join(ROOT, p)), dir],
  }).output();
  if (!cp.success) throw new Error(new TextDecoder().decode(cp.stderr));
  return dir;
}

/** The outcome of one script. */
export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script` with bash in `cwd`, with `env`, bounded in time; `set -e` stops it at the first
 * failed command (a pipeline's status is its last command's, as in a user's shell).
 */
export async function runScript(
  script: string,
  cwd: string,
  env: Record<string, string>,
  timeoutMs = 180_000,
): Promise<ScriptRun> {
  const out = await new Deno.Command("bash", {
    args: ["-c", `set -e\n${script}`],
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(timeoutMs),
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** A process started in a session of its own, so it and its children stop together. */
export interface Session {
  /** Everything it printed on stdout so far. */
  stdout(): string;
  /** SIGTERM to the whole session, then waits for the leader. */
  stop(): Promise<void>;
}

/** Starts `script` under `setsid` (npx, deno task and the server it starts: one group). */
export function startSession(script: string, cwd: string, env: Record<string, string>): Session {
  const child = new Deno.Command("setsid", {
    args: ["bash", "-c", `exec ${script}`],
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let text = "";
  const reading = (async () => {
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) text += chunk;
  })();
  return {
    stdout: () => text,
    stop: async () => {
      try {
        // setsid execs in place when not a group leader: the child's pid leads the group.
        Deno.kill(-child.pid, "SIGTERM");
      } catch { /* already gone */ }
      await child.status;
      await reading;
    },
  };
}
