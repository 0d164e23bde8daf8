/**
 * Verifying the audit log: an export (src/audit/export.ts) against the manifest public key, or
 * the log in the store. The first problem is named by the `seq` of the entry it concerns: an
 * entry whose hash does not match its content was changed; a `seq` missing from its place was
 * removed (or, found later, reordered); an entry not chained to its predecessor's hash names the
 * predecessor as changed; an export whose entries end before its signed head lost its tail. The
 * signatures of the head and of a checkpoint must verify with the manifest key.
 *
 * What it cannot prove: a log rewritten from some entry on with every hash recomputed, and no
 * signed head kept from before, verifies. Keep exports (their signed heads) elsewhere: a later
 * export must extend an earlier head (same `hash` at its `seq`).
 *
 * @module
 */
import type { AuditCheckpoint, AuditEntry, AuditHead, AuditPort } from "../store/ports/audit.ts";
import { AUDIT_LIST_MAX } from "../store/ports/audit.ts";
import { entryHash, GENESIS, positionSigned } from "./chain.ts";
import type { SignedAuditHead } from "./log.ts";

/** The first problem found, and the entry it names (null: it concerns no single entry). */
export interface AuditProblem {
  seq: number | null;
  kind: "format" | "changed" | "removed" | "reordered" | "truncated" | "head" | "checkpoint";
  message: string;
}

/** What verifying found: the chain's extent, or its first problem. */
export type AuditVerification =
  | { ok: true; entries: number; from: AuditHead; head: AuditHead }
  | { ok: false; problem: AuditProblem };

/**
 * Walks a chain entry by entry from its start (the genesis or a checkpoint); each step answers
 * the entry's problem or null.
 */
class ChainWalk {
  #last: AuditHead;
  entries = 0;

  constructor(readonly start: AuditHead, private present: (seq: number) => boolean) {
    this.#last = start;
  }

  get last(): AuditHead {
    return this.#last;
  }

  step(entry: AuditEntry): AuditProblem | null {
    const want = this.#last.seq + 1;
    if (entryHash(entry) !== entry.hash) {
      return problem(
        entry.seq,
        "changed",
        `Entry seq ${entry.seq} was changed: its hash does not match its content`,
      );
    }
    if (entry.seq !== want) {
      if (entry.seq < want || this.present(want)) {
        const seq = entry.seq < want ? entry.seq : want;
        return problem(
          seq,
          "reordered",
          `Entry seq ${seq} is out of order (found seq ${entry.seq} where seq ${want} belongs)`,
        );
      }
      return problem(
        want,
        "removed",
        `Entry seq ${want} was removed (seq ${entry.seq} follows seq ${want - 1})`,
      );
    }
    if (entry.prevHash !== this.#last.hash) {
      if (this.#last.seq === this.start.seq) {
        const start = this.start.seq === 0
          ? "the start of the log"
          : `the checkpoint at seq ${this.start.seq}`;
        return problem(entry.seq, "changed", `Entry seq ${entry.seq} does not chain to ${start}`);
      }
      return problem(
        this.#last.seq,
        "changed",
        `Entry seq ${this.#last.seq} was changed: seq ${entry.seq} does not chain to its hash`,
      );
    }
    this.#last = { seq: entry.seq, hash: entry.hash };
    this.entries++;
    return null;
  }
}

function problem(seq: number | null, kind: AuditProblem["kind"], message: string): AuditProblem {
  return { seq, kind, message };
}

function failed(p: AuditProblem): AuditVerification {
  return { ok: false, problem: p };
}

function checkpointProblem(checkpoint: AuditCheckpoint, publicKey: Uint8Array) {
  if (positionSigned("checkpoint", checkpoint, checkpoint.signature, publicKey)) return null;
  return problem(
    checkpoint.seq,
    "checkpoint",
    `The checkpoint at seq ${checkpoint.seq} is not signed by the manifest key`,
  );
}

/**
 * Verifies an export's text (JSON lines) against the manifest public key `publicKey`.
 *
 * @example
 * ```ts
 * const result = verifyAuditExport(await Deno.readTextFile("audit.jsonl"), publicKey);
 * if (!result.ok) console.error(result.problem.message);
 * ```
 */
export function verifyAuditExport(text: string, publicKey: Uint8Array): AuditVerification {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const parsed: Record<string, unknown>[] = [];
  for (const [i, l] of lines.entries()) {
    const value = parseLine(l);
    if (!value) {
      return failed(problem(null, "format", `Line ${i + 1} is not a line of an audit export`));
    }
    parsed.push(value);
  }
  const seqs = new Set(parsed.filter((l) => l.kind === "entry").map((l) => l.seq as number));
  let at = 0;
  let start: AuditHead = GENESIS;
  if (parsed[0]?.kind === "checkpoint") {
    const checkpoint = parsed[0] as unknown as AuditCheckpoint;
    const bad = checkpointProblem(checkpoint, publicKey);
    if (bad) return failed(bad);
    start = { seq: checkpoint.seq, hash: checkpoint.hash };
    at = 1;
  }
  const walk = new ChainWalk(start, (seq) => seqs.has(seq));
  for (; at < parsed.length && parsed[at].kind === "entry"; at++) {
    const bad = walk.step(parsed[at] as unknown as AuditEntry);
    if (bad) return failed(bad);
  }
  if (at !== parsed.length - 1 || parsed[at].kind !== "head") {
    const tail = at === parsed.length
      ? "ends without its signed head"
      : `has a stray line ${at + 1}`;
    return failed(
      problem(
        walk.last.seq + 1,
        "truncated",
        `The export ${tail} (cut after entry seq ${walk.last.seq}?)`,
      ),
    );
  }
  return headCheck(walk, parsed[at] as unknown as SignedAuditHead, publicKey);
}

function headCheck(
  walk: ChainWalk,
  head: SignedAuditHead,
  publicKey: Uint8Array,
): AuditVerification {
  if (!positionSigned("head", head, head.signature, publicKey)) {
    return failed(
      problem(null, "head", `The signed head (seq ${head.seq}) is not signed by the manifest key`),
    );
  }
  const last = walk.last;
  const first = last.seq + 1;
  if (head.seq > last.seq) {
    return failed(problem(
      first,
      "truncated",
      `Entries from seq ${first} to seq ${head.seq} were removed: the entries end at seq ` +
        `${last.seq}, the signed head is at seq ${head.seq}`,
    ));
  }
  if (head.seq < last.seq) {
    const past = `Entry seq ${head.seq + 1} is past the signed head (seq ${head.seq})`;
    return failed(problem(head.seq + 1, "head", past));
  }
  if (head.hash !== last.hash) {
    return failed(problem(
      head.seq,
      "changed",
      `Entry seq ${head.seq} does not match the signed head: entries up to it were changed ` +
        "and their hashes recomputed",
    ));
  }
  return { ok: true, entries: walk.entries, from: walk.start, head: last };
}

function parseLine(text: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const line = value as Record<string, unknown>;
  const position = Number.isSafeInteger(line.seq) && typeof line.hash === "string";
  switch (line.kind) {
    case "entry":
      return position && typeof line.at === "string" && typeof line.prevHash === "string" &&
          typeof line.event === "object" && line.event !== null
        ? line
        : null;
    case "checkpoint":
    case "head":
      return position && typeof line.signature === "string" ? line : null;
    default:
      return null;
  }
}

/**
 * Verifies the log in the store: its checkpoint's signature, the chain from it, and that the
 * chain ends at the stored head. (The store keeps no signed head: compare with an export's.)
 *
 * @example
 * ```ts
 * const result = await verifyAuditStore(ports.vault.audit, (await keys.manifestKey()).publicKey);
 * ```
 */
export async function verifyAuditStore(
  port: AuditPort,
  publicKey: Uint8Array,
): Promise<AuditVerification> {
  const head = await port.head() ?? GENESIS;
  const checkpoint = await port.checkpoint();
  if (checkpoint) {
    const bad = checkpointProblem(checkpoint, publicKey);
    if (bad) return failed(bad);
  }
  const walk = new ChainWalk(checkpoint ?? GENESIS, () => false);
  let more = true;
  while (more && walk.last.seq < head.seq) {
    const page = await port.list({ after: walk.last.seq, limit: AUDIT_LIST_MAX });
    const inside = page.filter((entry) => entry.seq <= head.seq);
    for (const entry of inside) {
      const bad = walk.step(entry);
      if (bad) return failed(bad);
    }
    more = inside.length === AUDIT_LIST_MAX;
  }
  if (walk.last.seq < head.seq) {
    return failed(
      problem(
        walk.last.seq + 1,
        "removed",
        `Entry seq ${walk.last.seq + 1} was removed: the log's head is at seq ${head.seq}`,
      ),
    );
  }
  if (walk.last.hash !== head.hash) {
    return failed(
      problem(head.seq, "changed", `Entry seq ${head.seq} does not match the log's head`),
    );
  }
  return { ok: true, entries: walk.entries, from: walk.start, head };
}
