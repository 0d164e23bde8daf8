/**
 * Differential test of the edge's HTTP/1.1 parser against Node.js's llhttp (issue 26): the
 * same raw bytes, followed by a pipelined canary request, go to Sealpost's `serveHttp` and
 * to Node's own HTTP server (tests/net/_llhttp_server.mjs); Sealpost must never be more
 * lenient. The cases are in tests/net/_differential/ by topic; the rule between the two
 * outcomes is `judge` in tests/net/_differential/verdict.ts. One step per case names it;
 * `deno run -A tests/net/_differential/report.ts` prints every outcome.
 */
import { CASES } from "./_differential/cases.ts";
import { runCases } from "./_differential/run.ts";
import { withServers } from "./_differential/servers.ts";
import { describe, judge } from "./_differential/verdict.ts";

Deno.test("differential: Sealpost's HTTP/1.1 parsing is never more lenient than llhttp's", async (t) => {
  const names = new Set(CASES.map((c) => c.name));
  if (names.size !== CASES.length) throw new Error("two differential cases share a name");
  const runs = await withServers((llhttp, sealpost) => runCases(CASES, llhttp, sealpost));
  for (const run of runs) {
    await t.step(run.case.name, () => {
      const problems = judge(run.case, run.llhttp, run.sealpost);
      if (problems.length === 0) return;
      throw new Error(
        `${problems.join("; ")}\n  llhttp:   ${describe(run.llhttp)}\n` +
          `  Sealpost: ${describe(run.sealpost)}`,
      );
    });
  }
});
