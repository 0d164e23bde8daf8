import assert from "node:assert/strict";
import { AuditLog } from "../../../../src/audit/log.ts";
import { pruneAudit } from "../../../../src/audit/retention.ts";
import { verifyAuditStore } from "../../../../src/audit/verify.ts";
import { generateSigningKeyPair } from "../../../../src/crypto/signing.ts";
import { KvAudit } from "../../../../src/store/kv/audit.ts";
import { PgAudit } from "../../../../src/store/pg/audit.ts";
import { copyAuditFromKv } from "../../../../src/store/pg/from_kv/audit.ts";
import { freshKv } from "../../contract/_kv.ts";
import { freshPg } from "../../contract/_pg.ts";

Deno.test("pg from kv: the audit log is copied as it is, pruned part and head included, once", async () => {
  const kv = await freshKv();
  const pg = await freshPg();
  try {
    const key = generateSigningKeyPair();
    const source = new KvAudit(kv.kv);
    let now = new Date("2030-01-01T00:00:00.000Z");
    const log = new AuditLog(source, { manifestKey: () => Promise.resolve(key), now: () => now });
    for (let n = 0; n < 1005; n++) await log.record({ action: "record_viewed", personId: `p${n}` });
    now = new Date("2030-06-01T00:00:00.000Z");
    await log.record({ action: "sign_in", personId: "p1", databaseId: "db1" });
    assert.equal(await pruneAudit(source, key, 30, now), 1005);

    assert.deepEqual(await copyAuditFromKv(kv.kv, kv.dir, pg.sql), { entries: 1 });
    const target = new PgAudit(pg.sql);
    assert.deepEqual(await target.head(), await source.head());
    assert.deepEqual(await target.checkpoint(), await source.checkpoint());
    assert.deepEqual(await target.list({ limit: 10 }), await source.list({ limit: 10 }));
    const verified = await verifyAuditStore(target, key.publicKey);
    assert.deepEqual(verified.ok && [verified.from.seq, verified.entries], [1005, 1]);
    assert.deepEqual(await copyAuditFromKv(kv.kv, kv.dir, pg.sql), { entries: 0 });
    const next = new AuditLog(target, { manifestKey: () => Promise.resolve(key) });
    await next.record({ action: "sign_out", personId: "p1" });
    assert.equal((await target.head())?.seq, 1007, "appends go on from the copied head");
  } finally {
    await pg.close();
    await kv.close();
  }
});
