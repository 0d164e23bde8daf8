/**
 * The checks of the machine the instance runs on: the data dir's modes, the open-file limit
 * the server runs under, and the free space under the data dir.
 *
 * @module
 */
import { statfs } from "node:fs/promises";
import { join } from "node:path";
import { connectionCap, openFileLimit } from "../net/limits.ts";
import { lockHolder } from "../store/data_dir.ts";
import { check, type CheckResult, reason } from "./check.ts";

/** Files of a data dir that hold no secret: the lock `serve` holds (src/store/data_dir.ts). */
const NOT_SECRET = new Set(["serve.lock"]);

/** The uploaded files' folder, whose many files are checked by their folders only. */
const BLOBS = "blobs";

/**
 * Paths under `dir` (the data dir itself first) whose mode gives access to group or others:
 * every folder must be 0700 and every file but the lock 0600 (or stricter). Blob files are
 * not walked one by one; their folder is checked.
 */
async function looseModes(dir: string): Promise<string[]> {
  const loose: string[] = [];
  const visit = async (path: string, rel: string) => {
    // The data dir itself may be a link to where the data lives; nothing inside is followed.
    const info = rel === "" ? await Deno.stat(path) : await Deno.lstat(path);
    const mode = (info.mode ?? 0) & 0o777;
    const name = rel.split("/").at(-1)!;
    if (info.isDirectory) {
      if (mode & 0o077) loose.push(`${rel || "."}/ is ${mode.toString(8)} (want 700)`);
      if (rel === BLOBS) return;
      for await (const entry of Deno.readDir(path)) {
        await visit(join(path, entry.name), rel ? `${rel}/${entry.name}` : entry.name);
      }
    } else if (info.isFile && !NOT_SECRET.has(name) && (mode & 0o077)) {
      loose.push(`${rel} is ${mode.toString(8)} (want 600)`);
    }
  };
  await visit(dir, "");
  return loose;
}

/**
 * `data_dir_modes`: the data dir is 0700 and the files in it (secrets, the store) 0600.
 *
 * @example
 * ```ts
 * await dataDirCheck("/var/lib/sealpost", true);
 * ```
 */
export async function dataDirCheck(dir: string, required: boolean): Promise<CheckResult> {
  const name = "data_dir_modes";
  try {
    const loose = await looseModes(dir);
    if (loose.length === 0) return check(name, "ok", `${dir}: folders 700, files 600`);
    return check(
      name,
      "fail",
      `${dir}: ${loose.slice(0, 5).join(", ")}${
        loose.length > 5 ? ` and ${loose.length - 5} more` : ""
      }` +
        `; fix with: chmod -R go-rwx ${dir}`,
    );
  } catch (err) {
    if (err instanceof Deno.errors.NotFound && !required) {
      return check(
        name,
        "skip",
        `${dir} is not on this machine: run doctor beside the server, or give --data DIR`,
      );
    }
    return check(name, "fail", `${dir} cannot be read: ${reason(err)}`);
  }
}

/** Open-file limit under which the check warns (the unit of docs/deploy sets 65536). */
export const NOFILE_WARN = 8192;

/** Where the open-file limit came from, for the line. */
export type LimitSource =
  | { kind: "instance"; limit: number }
  | { kind: "pid"; pid: number; limit: number }
  | { kind: "own"; limit: number };

/**
 * The server's open-file limit as best known: from `GET /admin/instance` (`instanceLimit`,
 * the server reads its own `/proc/self/limits`), else from `/proc/<pid>/limits` of the `serve`
 * holding `dataDir`'s lock, else this process's own.
 */
export async function openFileSource(
  instanceLimit: number | null,
  dataDir: string,
): Promise<LimitSource> {
  if (instanceLimit !== null) return { kind: "instance", limit: instanceLimit };
  const pid = await lockHolder(dataDir);
  if (pid !== null) {
    const limits = await Deno.readTextFile(`/proc/${pid}/limits`).catch(() => null);
    if (limits !== null) return { kind: "pid", pid, limit: openFileLimit(() => limits) };
  }
  return { kind: "own", limit: openFileLimit() };
}

/**
 * `open_files`: the soft open-file limit, which caps the connections served at once.
 */
export function openFilesCheck(source: LimitSource, maxConnections: number): CheckResult {
  const name = "open_files";
  const { limit } = source;
  const whose = source.kind === "instance"
    ? "the server's limit"
    : source.kind === "pid"
    ? `the server's limit (pid ${source.pid}, from serve.lock)`
    : "this doctor's own limit (the server's is unknown: no admin token, no server beside it)";
  const shown = limit >= Number.MAX_SAFE_INTEGER ? "unlimited" : String(limit);
  const words = `${whose} is ${shown} open files: up to ${
    connectionCap(maxConnections, limit)
  } connections at once`;
  return limit < NOFILE_WARN
    ? check(name, "warn", `${words}; raise it (LimitNOFILE=65536, ulimit -n 65536)`)
    : check(name, "ok", words);
}

/** Free space under which `disk_free` fails: 1 GiB, or 5 % of the file system. */
export const DISK_FAIL_BYTES = 1024 ** 3;
const DISK_FAIL_RATIO = 0.05;
/** Free share under which `disk_free` warns. */
const DISK_WARN_RATIO = 0.15;

/**
 * `disk_free`: free space of the file system holding `dir` (node:fs statfs, which Deno
 * implements; the space an unprivileged process may use).
 */
export async function diskCheck(dir: string): Promise<CheckResult> {
  const name = "disk_free";
  let stats;
  try {
    stats = await statfs(dir);
  } catch (err) {
    if (err instanceof Error && /ENOENT|No such file/.test(err.message)) {
      return check(name, "skip", `${dir} is not on this machine`);
    }
    return check(name, "fail", `cannot read the free space of ${dir}: ${reason(err)}`);
  }
  const free = stats.bavail * stats.bsize;
  const total = stats.blocks * stats.bsize;
  const ratio = total > 0 ? free / total : 0;
  const words = `${gib(free)} GiB free of ${gib(total)} GiB (${(ratio * 100).toFixed(0)} %) ` +
    `under ${dir}`;
  if (free < DISK_FAIL_BYTES || ratio < DISK_FAIL_RATIO) {
    return check(name, "fail", `${words}: writes will soon answer 503 storage_unavailable`);
  }
  return check(name, ratio < DISK_WARN_RATIO ? "warn" : "ok", words);
}

function gib(bytes: number): string {
  return (bytes / 1024 ** 3).toFixed(1);
}
