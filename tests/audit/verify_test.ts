import assert from "node:assert/strict";
import { verifyAuditExport, verifyAuditStore } from "../../src/audit/verify.ts";
import { entryHash, signPosition } from "../../src/audit/chain.ts";
import { generateSigningKeyPair } from "../../src/crypto/signing.ts";
import { auditKeys } from "../../src/store/kv/keys.ts";
import type { AuditEntry } from "../../src/store/ports/audit.ts";
import { editLines, testLog } from "./_log.ts";

type Line = Record<string, unknown>;

/** Verifies `edit` of a fresh log's export of 6 entries; answers the problem found. */
async function problemOf(edit: (lines: Line[], key: Uint8Array) => Line[]) {
  const t = await testLog();
  try {
    await t.fill(6);
    const text = editLines(await t.exported(), (lines) => edit(lines, t.key.secretKey));
    const result = verifyAuditExport(text, t.key.publicKey);
    assert.equal(result.ok, false, "the edit is found");
    return result.ok ? null : result.problem;
  } finally {
    await t.close();
  }
}

Deno.test("audit verify: an export verifies with the manifest key, not with another", async () => {
  const t = await testLog();
  try {
    await t.fill(5);
    const text = await t.exported();
    const result = verifyAuditExport(text, t.key.publicKey);
    assert.deepEqual(result.ok && [result.entries, result.head.seq, result.from.seq], [5, 5, 0]);
    const other = verifyAuditExport(text, generateSigningKeyPair().publicKey);
    assert.equal(!other.ok && other.problem.kind, "head");
  } finally {
    await t.close();
  }
});

Deno.test("audit verify: an empty log's export verifies", async () => {
  const t = await testLog();
  try {
    const result = verifyAuditExport(await t.exported(), t.key.publicKey);
    assert.deepEqual(result.ok && result.entries, 0);
  } finally {
    await t.close();
  }
});

Deno.test("audit verify: an edited entry is named", async () => {
  const problem = await problemOf((lines) => {
    (lines[3].event as Line).personId = "someone else";
    return lines;
  });
  assert.deepEqual([problem?.kind, problem?.seq], ["changed", 4]);
  assert.match(problem!.message, /Entry seq 4 was changed/);
});

Deno.test("audit verify: an edited entry with its hash recomputed names it by the next", async () => {
  const problem = await problemOf((lines) => {
    (lines[2].event as Line).action = "sign_in";
    lines[2].hash = entryHash(lines[2] as unknown as AuditEntry);
    return lines;
  });
  assert.deepEqual([problem?.kind, problem?.seq], ["changed", 3]);
});

Deno.test("audit verify: a removed entry is named", async () => {
  const problem = await problemOf((lines) => lines.filter((l) => l.seq !== 3));
  assert.deepEqual([problem?.kind, problem?.seq], ["removed", 3]);
  assert.match(problem!.message, /Entry seq 3 was removed/);
});

Deno.test("audit verify: two reordered entries are named", async () => {
  const problem = await problemOf((
    lines,
  ) => [...lines.slice(0, 2), lines[3], lines[2], ...lines.slice(4)]);
  assert.deepEqual([problem?.kind, problem?.seq], ["reordered", 3]);
  assert.match(problem!.message, /Entry seq 3 is out of order/);
});

Deno.test("audit verify: a truncated tail is named by its first missing entry", async () => {
  const cut = await problemOf((lines) => [...lines.slice(0, 4), lines.at(-1)!]);
  assert.deepEqual([cut?.kind, cut?.seq], ["truncated", 5]);
  const headless = await problemOf((lines) => lines.slice(0, 5));
  assert.deepEqual([headless?.kind, headless?.seq], ["truncated", 6]);
});

Deno.test("audit verify: a forged head signature is found", async () => {
  const forged = await problemOf((lines) => {
    const head = lines.at(-1)!;
    head.signature = signPosition(
      "head",
      head as { seq: number; hash: string },
      generateSigningKeyPair().secretKey,
    );
    return lines;
  });
  assert.equal(forged?.kind, "head");
  assert.match(forged!.message, /not signed by the manifest key/);
  const moved = await problemOf((lines) => {
    lines.at(-1)!.seq = 5;
    return lines;
  });
  assert.equal(moved?.kind, "head");
});

Deno.test("audit verify: a chain rewritten to a new head is found at the signed head", async () => {
  const problem = await problemOf((lines) => {
    let prev = lines[0].prevHash;
    for (const line of lines.slice(0, -1)) {
      line.at = "2001-01-01T00:00:00.000Z";
      line.prevHash = prev;
      prev = line.hash = entryHash(line as unknown as AuditEntry);
    }
    return lines;
  });
  assert.deepEqual([problem?.kind, problem?.seq], ["changed", 6]);
});

Deno.test("audit verify: a line that is not an export line is named by its number", async () => {
  const problem = await problemOf((lines) => [lines[0], { kind: "other" }, ...lines.slice(1)]);
  assert.deepEqual([problem?.kind, problem?.message], [
    "format",
    "Line 2 is not a line of an audit export",
  ]);
});

Deno.test("audit verify: the log in the store verifies, and an entry changed there is named", async () => {
  const t = await testLog();
  try {
    await t.fill(4);
    const ok = await verifyAuditStore(t.port, t.key.publicKey);
    assert.deepEqual(ok.ok && ok.entries, 4);
    const kv = t.kv;
    const entry = (await kv.get<AuditEntry>(auditKeys.entry(2))).value!;
    await kv.set(auditKeys.entry(2), { ...entry, event: { ...entry.event, personId: "x" } });
    const changed = await verifyAuditStore(t.port, t.key.publicKey);
    assert.deepEqual(!changed.ok && [changed.problem.kind, changed.problem.seq], ["changed", 2]);
    await kv.delete(auditKeys.entry(2));
    const removed = await verifyAuditStore(t.port, t.key.publicKey);
    assert.deepEqual(!removed.ok && [removed.problem.kind, removed.problem.seq], ["removed", 2]);
    await kv.set(auditKeys.entry(2), entry);
    await kv.delete(auditKeys.entry(4));
    const tail = await verifyAuditStore(t.port, t.key.publicKey);
    assert.deepEqual(!tail.ok && [tail.problem.kind, tail.problem.seq], ["removed", 4]);
  } finally {
    await t.close();
  }
});
