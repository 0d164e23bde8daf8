import assert from "node:assert/strict";
import { pruneAudit } from "../../src/audit/retention.ts";
import { verifyAuditExport, verifyAuditStore } from "../../src/audit/verify.ts";
import { signPosition } from "../../src/audit/chain.ts";
import { generateSigningKeyPair } from "../../src/crypto/signing.ts";
import { AUDIT_PRUNE_MAX } from "../../src/store/ports/audit.ts";
import { auditKeys } from "../../src/store/kv/keys.ts";
import { editLines, testLog } from "./_log.ts";
import { AuditLog } from "../../src/audit/log.ts";
import { startInstance } from "../_support/server.ts";

const START = new Date("2030-01-01T00:00:00.000Z");
const day = (n: number) => new Date(START.getTime() + n * 86_400_000);

Deno.test("audit retention: 0 days keeps everything", async () => {
  const t = await testLog();
  try {
    await t.fill(5, START);
    assert.equal(await pruneAudit(t.port, t.key, 0, day(1000)), 0);
    assert.equal((await t.port.list({ limit: 10 })).length, 5);
  } finally {
    await t.close();
  }
});

Deno.test("audit retention: entries past the retention go, and the log still verifies", async () => {
  const t = await testLog();
  try {
    await t.fill(10, START); // entry n at day n
    assert.equal(
      await pruneAudit(t.port, t.key, 3, day(10)),
      6,
      "days 1 to 6 are older than 3 days",
    );
    const kept = await t.port.list({ limit: 100 });
    assert.deepEqual(kept.map((e) => e.seq), [7, 8, 9, 10]);
    assert.equal((await t.port.checkpoint())?.seq, 6);
    const stored = await verifyAuditStore(t.port, t.key.publicKey);
    assert.deepEqual(stored.ok && [stored.from.seq, stored.entries], [6, 4]);
    const text = await t.exported();
    assert.match(text.split("\n")[0], /^\{"kind":"checkpoint","seq":6,/);
    const exported = verifyAuditExport(text, t.key.publicKey);
    assert.deepEqual(exported.ok && [exported.from.seq, exported.entries, exported.head.seq], [
      6,
      4,
      10,
    ]);
    await t.log.record({ action: "sign_out", personId: "p1" });
    assert.equal(verifyAuditExport(await t.exported(), t.key.publicKey).ok, true, "appends go on");
    assert.equal(await pruneAudit(t.port, t.key, 3, day(10)), 0, "a second pass finds nothing");
  } finally {
    await t.close();
  }
});

Deno.test("audit retention: everything pruned still verifies, up to the head", async () => {
  const t = await testLog();
  try {
    await t.fill(3, START);
    assert.equal(await pruneAudit(t.port, t.key, 1, day(100)), 3);
    const result = verifyAuditExport(await t.exported(), t.key.publicKey);
    assert.deepEqual(result.ok && [result.entries, result.head.seq], [0, 3]);
  } finally {
    await t.close();
  }
});

Deno.test(`audit retention: more than ${AUDIT_PRUNE_MAX} entries are pruned in batches`, async () => {
  const t = await testLog();
  try {
    for (let n = 0; n < AUDIT_PRUNE_MAX + 20; n++) {
      await t.log.record({ action: "record_viewed", personId: "p1" });
    }
    const later = new Date(Date.now() + 10 * 86_400_000);
    assert.equal(await pruneAudit(t.port, t.key, 1, later), AUDIT_PRUNE_MAX + 20);
    assert.equal((await verifyAuditStore(t.port, t.key.publicKey)).ok, true);
  } finally {
    await t.close();
  }
});

Deno.test("audit retention: a forged checkpoint is found, in an export and in the store", async () => {
  const t = await testLog();
  try {
    await t.fill(6, START);
    await pruneAudit(t.port, t.key, 3, day(6));
    const text = await t.exported();
    const forged = editLines(text, (lines) => {
      lines[0].signature = signPosition(
        "checkpoint",
        lines[0] as { seq: number; hash: string },
        generateSigningKeyPair().secretKey,
      );
      return lines;
    });
    const bad = verifyAuditExport(forged, t.key.publicKey);
    assert.deepEqual(!bad.ok && [bad.problem.kind, bad.problem.seq], ["checkpoint", 2]);
    const cpRow = (await t.kv.get<Record<string, unknown>>(auditKeys.checkpoint())).value!;
    await t.kv.set(auditKeys.checkpoint(), { ...cpRow, hash: "0".repeat(64) });
    const stored = await verifyAuditStore(t.port, t.key.publicKey);
    assert.deepEqual(!stored.ok && stored.problem.kind, "checkpoint");
  } finally {
    await t.close();
  }
});

Deno.test("audit retention: the vault's maintenance prunes past [audit] retention_days", async () => {
  const inst = await startInstance({ SEALPOST_AUDIT_RETENTION_DAYS: "2" });
  try {
    const vault = inst.server.vault!;
    const port = inst.server.store.ports.vault.audit;
    let now = new Date(Date.now() - 5 * 86_400_000);
    const log = new AuditLog(port, { manifestKey: () => vault.keys.manifestKey(), now: () => now });
    await log.record({ action: "backup_created", personId: null });
    await log.record({ action: "key_exported", personId: null });
    now = new Date();
    await log.record({ action: "sign_in", personId: "p1" });
    assert.equal((await vault.maintain()).auditPruned, 2);
    const publicKey = (await vault.keys.manifestKey()).publicKey;
    const result = await verifyAuditStore(port, publicKey);
    assert.deepEqual(result.ok && [result.from.seq, result.entries], [2, 1]);
  } finally {
    await inst.close();
  }
});
