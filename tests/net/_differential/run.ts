/**
 * Runs the differential cases: each case's bytes (and the canary) on a fresh connection to
 * each server, several cases at a time.
 */
import { CANARY, type Case } from "./case.ts";
import { exchange } from "./exchange.ts";
import type { Side } from "./servers.ts";
import type { Outcome } from "./verdict.ts";

/** A case and what each server did with it. */
export interface CaseRun {
  case: Case;
  llhttp: Outcome;
  sealpost: Outcome;
}

/**
 * How long a connection may stay quiet before the client gives up on it: the servers answer
 * on loopback in a few ms, so a server still quiet after this waits for more bytes.
 */
const IDLE_MS = 1000;

/** Cases in flight at once. */
const CONCURRENCY = 8;

/** What `side` does with the case's bytes followed by the canary. */
async function runCase(c: Case, side: Side): Promise<Outcome> {
  const parts = typeof c.send === "string" ? [c.send] : [...c.send];
  parts[parts.length - 1] += c.canary ?? CANARY;
  const mode = c.body ?? "read";
  const exchanged = await exchange(
    side.port,
    parts,
    IDLE_MS,
    (clientPort) => mode === "read" ? undefined : side.setMode(clientPort, mode),
  );
  return { ...exchanged, ...await side.take(exchanged.port) };
}

/** Every case on both servers, {@link CONCURRENCY} at a time, in the order given. */
export async function runCases(cases: Case[], llhttp: Side, sealpost: Side): Promise<CaseRun[]> {
  const runs: CaseRun[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      const [node, seal] = await Promise.all([
        runCase(cases[i], llhttp),
        runCase(cases[i], sealpost),
      ]);
      runs[i] = { case: cases[i], llhttp: node, sealpost: seal };
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return runs;
}
