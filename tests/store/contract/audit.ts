/**
 * The contract of the audit port (src/store/ports/audit.ts), for any implementation:
 * `auditContract("kv", make)` registers one `Deno.test` per guarantee.
 */
import assert from "node:assert/strict";
import { contractTests, type MakePort } from "./_suite.ts";
import {
  AUDIT_PRUNE_MAX,
  AuditChainError,
  type AuditCheckpoint,
  type AuditEntry,
  type AuditEvent,
  type AuditPort,
} from "../../../src/store/ports/audit.ts";
import { chainEntry } from "../../../src/audit/chain.ts";

/** Makes a fresh, empty port and closes it. */
export type MakeAudit = MakePort<AuditPort>;

const AT = new Date("2030-01-01T00:00:00.000Z");

function event(n: number): AuditEvent {
  return {
    action: n % 2 === 0 ? "record_viewed" : "sign_in",
    personId: `p${n % 3}`,
    ...(n % 2 === 0 ? { databaseId: "db1" } : {}),
    target: { kind: "record", id: `r${n}` },
    detail: { n },
  };
}

function append(port: AuditPort, n: number): Promise<AuditEntry> {
  return port.append((prev) => chainEntry(prev, event(n), AT));
}

async function appendMany(port: AuditPort, count: number): Promise<AuditEntry[]> {
  const out: AuditEntry[] = [];
  for (let n = 1; n <= count; n++) out.push(await append(port, n));
  return out;
}

function checkpointOf(entry: AuditEntry): AuditCheckpoint {
  return { seq: entry.seq, hash: entry.hash, at: AT.toISOString(), signature: "c2ln" };
}

/** Every entry's prevHash is its predecessor's hash, and seq runs 1, 2, … without gaps. */
function assertChained(entries: AuditEntry[], from = 1) {
  entries.forEach((entry, i) => {
    assert.equal(entry.seq, from + i);
    if (i > 0) assert.equal(entry.prevHash, entries[i - 1].hash, `seq ${entry.seq} chains`);
  });
}

/**
 * Registers the audit port's contract for the implementation `make` builds.
 *
 * @example
 * ```ts
 * auditContract("deno kv", makeKvAudit);
 * ```
 */
export function auditContract(name: string, make: MakeAudit): void {
  const test = contractTests("audit", name, make);

  test("an empty log has no head, no checkpoint and no entries", async (port) => {
    assert.equal(await port.head(), null);
    assert.equal(await port.checkpoint(), null);
    assert.deepEqual(await port.list({ limit: 10 }), []);
  });

  test("appends are built on the head, stored as built and listed in seq order", async (port) => {
    const seen: (number | null)[] = [];
    const first = await port.append((prev) => {
      seen.push(prev?.seq ?? null);
      return chainEntry(prev, event(1), AT);
    });
    const rest = [await append(port, 2), await append(port, 3)];
    assert.deepEqual(seen, [null]);
    const entries = [first, ...rest];
    assertChained(entries);
    assert.deepEqual(await port.list({ limit: 10 }), entries);
    assert.deepEqual(await port.head(), { seq: 3, hash: rest[1].hash });
  });

  test("an entry that does not follow the head is refused and not stored", async (port) => {
    await append(port, 1);
    await assert.rejects(
      port.append((prev) => ({ ...chainEntry(prev, event(2), AT), seq: 5 })),
      AuditChainError,
    );
    assert.equal((await port.list({ limit: 10 })).length, 1);
    assert.equal((await port.head())!.seq, 1);
  });

  test("list pages after or before a seq, either way, filtered by person, database and action", async (port) => {
    const entries = await appendMany(port, 12);
    assert.deepEqual(await port.list({ after: 4, limit: 3 }), entries.slice(4, 7));
    const seqs = async (q: Parameters<AuditPort["list"]>[0]) =>
      (await port.list(q)).map((e) => e.seq);
    assert.deepEqual(await seqs({ limit: 100, personId: "p1" }), [1, 4, 7, 10]);
    assert.deepEqual(await seqs({ limit: 100, databaseId: "db1" }), [2, 4, 6, 8, 10, 12]);
    assert.deepEqual(await seqs({ limit: 100, action: "sign_in" }), [1, 3, 5, 7, 9, 11]);
    assert.deepEqual(await seqs({ after: 5, limit: 2, action: "record_viewed" }), [6, 8]);
    assert.deepEqual(await seqs({ limit: 100, personId: "p2", action: "sign_in" }), [5, 11]);
    assert.deepEqual(await seqs({ limit: 0 }), []);
    assert.deepEqual(await seqs({ after: 3, before: 7, limit: 100 }), [4, 5, 6]);
    assert.deepEqual(await seqs({ newestFirst: true, limit: 3 }), [12, 11, 10]);
    assert.deepEqual(await seqs({ newestFirst: true, before: 10, limit: 3 }), [9, 8, 7]);
    assert.deepEqual(
      await seqs({ newestFirst: true, before: 9, limit: 2, action: "sign_in" }),
      [7, 5],
    );
  });

  test("concurrent appends from two processes stay gapless on one chain", async (port, second) => {
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => append(i % 2 === 0 ? port : second, i + 1)),
    );
    const entries = await port.list({ limit: 100 });
    assert.equal(entries.length, 40);
    assertChained(entries);
    assert.deepEqual(await second.head(), { seq: 40, hash: entries[39].hash });
  });

  test("prune removes the oldest entries and stores the checkpoint in one write", async (port) => {
    const entries = await appendMany(port, 6);
    assert.equal(await port.prune(4, checkpointOf(entries[2])), 3);
    assert.deepEqual(await port.checkpoint(), checkpointOf(entries[2]));
    assert.deepEqual(await port.list({ limit: 10 }), entries.slice(3));
    assert.deepEqual(await port.head(), { seq: 6, hash: entries[5].hash });
    assert.equal(await port.prune(6, checkpointOf(entries[4])), 2);
    assert.deepEqual(await port.list({ limit: 10 }), entries.slice(5));
  });

  test("a prune whose checkpoint is not the last pruned entry changes nothing", async (port) => {
    const entries = await appendMany(port, 6);
    const wrong = [
      [4, { ...checkpointOf(entries[2]), hash: entries[1].hash }],
      [4, checkpointOf(entries[1])],
      [8, checkpointOf(entries[5])],
    ] as const;
    for (const [before, checkpoint] of wrong) {
      await assert.rejects(port.prune(before, checkpoint), AuditChainError);
    }
    await port.prune(3, checkpointOf(entries[1]));
    await assert.rejects(port.prune(2, checkpointOf(entries[0])), AuditChainError, "backwards");
    await assert.rejects(port.prune(3, checkpointOf(entries[1])), AuditChainError, "again");
    assert.deepEqual(await port.checkpoint(), checkpointOf(entries[1]));
    assert.deepEqual(await port.list({ limit: 10 }), entries.slice(2));
  });

  test(`a prune spans at most ${AUDIT_PRUNE_MAX} entries`, async (port) => {
    const entries = await appendMany(port, AUDIT_PRUNE_MAX + 2);
    const over = entries[AUDIT_PRUNE_MAX];
    await assert.rejects(port.prune(over.seq + 1, checkpointOf(over)), AuditChainError);
    const last = entries[AUDIT_PRUNE_MAX - 1];
    assert.equal(await port.prune(last.seq + 1, checkpointOf(last)), AUDIT_PRUNE_MAX);
    assert.equal((await port.list({ limit: 10 })).length, 2);
  });

  test("after everything is pruned, appends continue the chain from the head", async (port) => {
    const entries = await appendMany(port, 3);
    await port.prune(4, checkpointOf(entries[2]));
    assert.deepEqual(await port.list({ limit: 10 }), []);
    const next = await append(port, 4);
    assert.equal(next.seq, 4);
    assert.equal(next.prevHash, entries[2].hash);
  });

  test("a prune and appends from another process at once both hold", async (port, second) => {
    const entries = await appendMany(port, 10);
    await Promise.all([
      port.prune(6, checkpointOf(entries[4])),
      ...Array.from({ length: 10 }, (_, i) => append(second, 11 + i)),
    ]);
    const kept = await port.list({ limit: 100 });
    assert.equal(kept[0].seq, 6);
    assert.equal(kept.length, 15);
    assertChained(kept, 6);
  });
}
