import assert from "node:assert/strict";
import { auditEvent, AuditLog, REDACTED } from "../../src/audit/log.ts";
import { verifyAuditExport } from "../../src/audit/verify.ts";
import { generateSigningKeyPair } from "../../src/crypto/signing.ts";
import type { AuditEvent, AuditPort } from "../../src/store/ports/audit.ts";
import { testLog } from "./_log.ts";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;

Deno.test("audit log: AuditEvent admits exactly the fields of the issue's design", () => {
  const exact: Equal<
    keyof AuditEvent,
    "action" | "personId" | "tokenId" | "databaseId" | "target" | "outcome" | "detail"
  > = true;
  const detail: Equal<
    NonNullable<AuditEvent["detail"]>,
    Record<string, string | number | boolean>
  > = true;
  assert.ok(exact && detail);
  // @ts-expect-error: an event has no place for values
  const withValues: AuditEvent = { action: "record_viewed", personId: "p1", values: { a: 1 } };
  assert.ok(withValues);
});

Deno.test("audit log: only the event's own fields are kept; secrets in detail are redacted", () => {
  const event = {
    action: "token_created",
    personId: "p1",
    tokenId: "t1",
    values: { name: "Ada" },
    detail: {
      name: "ci",
      scopes: "records:read",
      count: 2,
      owner: "spo_abc123_0123456789abcdef",
      person: "spt_t1_s3cr3tS3cr3t",
      webhook: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      hash: "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA",
      key: "AGE-SECRET-KEY-1QQQ",
      nested: { a: 1 },
      infinite: Infinity,
    },
  } as unknown as AuditEvent;
  assert.deepEqual(auditEvent(event), {
    action: "token_created",
    personId: "p1",
    tokenId: "t1",
    detail: {
      name: "ci",
      scopes: "records:read",
      count: 2,
      owner: REDACTED,
      person: REDACTED,
      webhook: REDACTED,
      hash: REDACTED,
      key: REDACTED,
    },
  });
});

Deno.test("audit log: the export holds no secret given in events' detail", async () => {
  const t = await testLog();
  const secrets = ["spo_abc123_0123456789abcdef", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"];
  try {
    for (const secret of secrets) {
      await t.log.record({ action: "webhook_secret_revealed", personId: "p1", detail: { secret } });
    }
    const text = await t.exported();
    for (const secret of secrets) assert.ok(!text.includes(secret), `${secret} is not exported`);
    assert.equal(verifyAuditExport(text, t.key.publicKey).ok, true);
  } finally {
    await t.close();
  }
});

Deno.test("audit log: a failing store never fails the caller: logged and counted", async () => {
  const logged: string[] = [];
  const broken = {
    append: () => Promise.reject(new Error("disk full")),
  } as unknown as AuditPort;
  const key = generateSigningKeyPair();
  const log = new AuditLog(broken, {
    manifestKey: () => Promise.resolve(key),
    log: (m) => logged.push(m),
  });
  await log.record({ action: "sign_in", personId: "p1" });
  await log.record({ action: "sign_out", personId: "p1" });
  assert.equal(log.failures, 2);
  assert.deepEqual(logged, [
    'Audit entry "sign_in" was not recorded: disk full',
    'Audit entry "sign_out" was not recorded: disk full',
  ]);
});

Deno.test("audit log: the signed head is the head of the log", async () => {
  const t = await testLog();
  try {
    const empty = await t.log.signedHead();
    assert.deepEqual([empty.seq, empty.hash], [0, "0".repeat(64)]);
    await t.fill(3);
    const head = await t.log.signedHead();
    assert.deepEqual({ seq: head.seq, hash: head.hash }, await t.port.head());
    assert.equal(head.publicKey, t.key.publicKey.toBase64());
  } finally {
    await t.close();
  }
});

Deno.test("audit log: records left unawaited are stored by idle(), in seq and time order", async () => {
  const t = await testLog();
  try {
    for (let n = 0; n < 20; n++) void t.log.record({ action: "record_viewed", personId: "p1" });
    await t.log.idle();
    const entries = await t.port.list({ limit: 100 });
    assert.equal(entries.length, 20);
    entries.forEach((e, i) => i > 0 && assert.ok(e.at >= entries[i - 1].at, `seq ${e.seq}`));
  } finally {
    await t.close();
  }
});
