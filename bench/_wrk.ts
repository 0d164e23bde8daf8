/**
 * Shared bench helpers: free ports, subprocess servers, and wrk runs with parsed figures.
 */

/** Figures of one wrk run. */
export interface WrkResult {
  rps: number;
  p50ms: number;
  p99ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

function toMs(value: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim());
  if (!m) throw new Error(`Unparsable latency "${value}"`);
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "ms" ? n : m[2] === "s" ? n * 1000 : n * 60_000;
}

/** Runs wrk with `--latency` and a Lua script; parses throughput and latency percentiles. */
export async function wrk(
  url: string,
  script: string,
  { connections = 64, threads = 2, seconds = 10 } = {},
): Promise<WrkResult> {
  const out = await new Deno.Command("wrk", {
    args: [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, "--latency", "-s", script, url],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) throw new Error(`wrk failed: ${new TextDecoder().decode(out.stderr)}`);
  const grab = (re: RegExp) => re.exec(text)?.[1];
  const errors = [...text.matchAll(/(connect|read|write|timeout) (\d+)/g)]
    .reduce((n, m) => n + Number(m[2]), 0);
  return {
    rps: Number(grab(/Requests\/sec:\s+([\d.]+)/)),
    p50ms: toMs(grab(/\s50%\s+(\S+)/) ?? "0us"),
    p99ms: toMs(grab(/\s99%\s+(\S+)/) ?? "0us"),
    requests: Number(grab(/(\d+) requests in/)),
    non2xx: Number(grab(/Non-2xx or 3xx responses:\s+(\d+)/) ?? 0),
    errors,
  };
}

/** Formats a number with a fixed number of decimals. */
export function fmt(n: number, digits = 1): string {
  return n.toFixed(digits);
}
