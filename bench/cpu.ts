/**
 * CPU time per thread of this process (Linux `/proc`), for benchmarks to report where the time
 * of a run went: steadier than throughput on a shared machine, and it names the busy thread.
 *
 * @module
 */

/** Clock ticks per second of `/proc/.../stat` (USER_HZ; 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU milliseconds (user + system) by thread, keyed `name#tid`. */
export type ThreadCpu = Map<string, number>;

/** CPU milliseconds (user + system) of the threads of process `pid` (default: this one). */
export function threadCpu(pid: number | "self" = "self"): ThreadCpu {
  const out: ThreadCpu = new Map();
  let tasks: Iterable<Deno.DirEntry>;
  try {
    tasks = Deno.readDirSync(`/proc/${pid}/task`);
  } catch {
    return out; // Not Linux, or the process is gone.
  }
  for (const task of tasks) {
    let raw: string;
    try {
      raw = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/stat`);
    } catch {
      continue; // The thread ended meanwhile.
    }
    const name = raw.slice(raw.indexOf("(") + 1, raw.lastIndexOf(")"));
    // Fields after the name: state is the first; utime and stime are the 12th and 13th.
    const fields = raw.slice(raw.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    out.set(`${name}#${task.name}`, (ticks * 1000) / TICKS_PER_SECOND);
  }
  return out;
}

/**
 * CPU microseconds per item between two snapshots, by thread name (threads of one name
 * summed, e.g. V8's workers), busiest first, with the total: `main 152 · sw-0 130 · total 310`.
 * The main thread is the one named after the executable (`deno`).
 */
export function cpuPerItem(before: ThreadCpu, after: ThreadCpu, items: number): string {
  const byName = new Map<string, number>();
  for (const [key, ms] of after) {
    const name = key.slice(0, key.lastIndexOf("#")).replace(/^deno$/, "main");
    byName.set(name, (byName.get(name) ?? 0) + ms - (before.get(key) ?? 0));
  }
  const rows = [...byName].filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((n, [, ms]) => n + ms, 0);
  const us = (ms: number) => Math.round((ms * 1000) / items);
  return [...rows.map(([name, ms]) => `${name} ${us(ms)}`), `total ${us(total)}`].join(" · ");
}
