/**
 * Prints each differential case's outcome on both servers, for the record:
 * `deno run -A tests/net/_differential/report.ts [--failing] [text in the case names]`.
 */
import { CASES } from "./cases.ts";
import { runCases } from "./run.ts";
import { withServers } from "./servers.ts";
import { describe, judge } from "./verdict.ts";

const failingOnly = Deno.args.includes("--failing");
const filter = Deno.args.find((arg) => !arg.startsWith("--")) ?? "";
const cases = CASES.filter((c) => c.name.includes(filter));
const started = performance.now();
const runs = await withServers((llhttp, sealpost) => runCases(cases, llhttp, sealpost));
const ms = Math.round(performance.now() - started);
let failing = 0;
for (const run of runs) {
  const problems = judge(run.case, run.llhttp, run.sealpost);
  if (problems.length > 0) failing++;
  if (failingOnly && problems.length === 0) continue;
  console.log(`${problems.length ? "FAIL" : "ok  "} ${run.case.name}`);
  console.log(`       llhttp:   ${describe(run.llhttp)}`);
  console.log(`       Sealpost: ${describe(run.sealpost)}`);
  for (const problem of problems) console.log(`       -> ${problem}`);
}
console.log(`${runs.length} cases, ${failing} failing, ${ms} ms`);
