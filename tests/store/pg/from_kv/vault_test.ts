import assert from "node:assert/strict";
import type { RecordEvent } from "../../../../src/store/ports/record_events.ts";
import { KvRecordEventOutbox } from "../../../../src/store/kv/record_events.ts";
import { vaultKvPorts } from "../../../../src/store/kv/vault_ports.ts";
import { copyVaultFromKv } from "../../../../src/store/pg/from_kv/vault.ts";
import { vaultPgPorts } from "../../../../src/store/pg/vault_ports.ts";
import type { VaultPorts } from "../../../../src/store/ports/bundle.ts";
import type { RecordWrite } from "../../../../src/store/ports/records.ts";
import { freshKv } from "../../contract/_kv.ts";
import { freshPg } from "../../contract/_pg.ts";

const AT = "2025-01-01T00:00:00.000Z";
const F = "f1";
const file = (c: string) => ({ owned: true, hash: c.repeat(64) });

function write(recordId: string, values: Record<string, unknown>, submission = 0): RecordWrite {
  return {
    formId: F,
    recordId,
    schemaVersion: 1,
    values,
    submissionId: submission ? recordId : null,
    appliedVersion: submission,
  };
}

/** `n` bytes that differ from part to part. */
const box = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + (i >> 10)) & 0xff);

/** Writes a little of everything through the KV ports. */
async function fill(v: VaultPorts) {
  await v.vaultDatabases.put({
    id: "db1",
    userId: "u1",
    relayUserId: "r1",
    name: "main",
    publicKey: "AAAA",
    fingerprint: "0".repeat(64),
    createdAt: AT,
  });
  await v.vaultDatabases.setFact("demo", { formId: F });
  const form = {
    formId: F,
    userId: "u1",
    databaseId: "db1",
    schemaVersion: 1,
    publishedVersion: null,
    publishedAt: null,
    createdAt: AT,
    updatedAt: AT,
    retentionDays: null,
  };
  const version = (n: number) => ({
    formId: F,
    schemaVersion: n,
    title: `v${n}`,
    fields: [{ id: "name", kind: "text" }],
    createdAt: AT,
  });
  await v.forms.create(form, version(1));
  await v.forms.update(F, (row) => ({ row: { ...row, schemaVersion: 2 }, version: version(2) }));
  const { records } = v;
  await records.write(F, "big", () => write("big", { text: "x".repeat(100_000), z: 1, a: 2 }));
  await records.write(F, "big", () => write("big", { text: "y".repeat(200), z: 2, a: 3 }));
  await records.write(F, "files", () => write("files", { a: file("a"), b: file("b") }));
  await records.write(F, "files", () => write("files", { a: file("a") }));
  await records.applySubmission(write("s1", { name: "S" }, 1), []);
  await records.applySubmission(write("s2", { name: "T" }, 1), []);
  await records.applySubmission(write("s2", { name: "T2" }, 2), []);
  await records.delete(F, "s1");
  await v.quarantine.save(
    {
      id: "q.1",
      databaseId: "db1",
      fingerprint: "0".repeat(64),
      submissionId: "q",
      version: 1,
      formId: F,
      formVersion: 3,
      code: "unknown_form_version",
      reason: "r",
      receivedAt: AT,
    },
    box(2 * 1024 * 1024 + 5),
    null,
  );
  const now = Date.now();
  await v.sessions.create("h1", {
    personId: "u1",
    csrf: "c",
    createdAt: now,
    seenAt: now,
    method: "password",
    secondFactor: false,
    address: "192.0.2.1",
    agent: "test",
  }, 3600_000);
  await v.signInFactors.add({
    credentialId: "cred-1",
    personId: "p1",
    publicKey: "pQECAyYgASFYIA",
    counter: 0,
    transports: ["internal"],
    deviceType: "multiDevice",
    backedUp: true,
    name: "Laptop",
    createdAt: AT,
    lastUsedAt: null,
  });
  await v.signInFactors.updateCounter("cred-1", 7, AT);
  await v.signInFactors.setTotp("p1", {
    secret: "JBSWY3DPEHPK3PXP",
    lastStep: null,
    createdAt: AT,
  });
  await v.signInFactors.useTotpStep("p1", 1234);
  await v.signInFactors.setRecoveryCodes("p1", ["a".repeat(64), "b".repeat(64)]);
  await fillPeople(v);
}

/** Two people, a database's members, a token and a ticket (and an expired one, not copied). */
async function fillPeople(v: VaultPorts) {
  const person = (id: string, email: string) => ({
    id,
    email,
    name: id,
    passwordHash: id === "p1" ? "$argon2id$v=19$x" : null,
    instanceAdmin: id === "p1",
    createdAt: AT,
    updatedAt: AT,
  });
  await v.people.create(person("p1", "ada@example.org"));
  await v.people.create(person("p2", "bob@example.org"));
  await v.memberships.put({ databaseId: "db1", personId: "p1", role: "owner", since: AT });
  await v.memberships.put({ databaseId: "db1", personId: "p2", role: "viewer", since: AT });
  await v.personTokens.save({
    id: "t1",
    personId: "p1",
    name: "cli",
    scopes: ["records:read", "relay:queue"],
    secretHash: "ab".repeat(32),
    createdAt: AT,
    expiresAt: null,
    lastUsedAt: AT,
  });
  const expiresAt = Date.now() + 3600_000;
  await v.tickets.save("h1", {
    kind: "invite",
    personId: null,
    data: { role: "editor" },
    expiresAt,
  });
  await v.tickets.save("old", { kind: "invite", personId: null, data: {}, expiresAt: 1 });
}

/** What the ports show, to compare one backend with the other. */
async function view(v: VaultPorts) {
  const ids = ["big", "files", "s1", "s2"];
  return {
    databases: await v.vaultDatabases.list(),
    fact: await v.vaultDatabases.fact("demo"),
    forms: await v.forms.list(),
    versions: await v.forms.versions(F),
    records: (await v.records.list(F, undefined, 10)).items,
    recordVersions: await Promise.all(ids.map((id) => v.records.versions(F, id, 10))),
    count: await v.records.count(F),
    byTime: (await v.records.idsByTime(F, { from: "", to: "", oldest: true, limit: 10 })).ids,
    releases: (await v.fileReleases.pending(10)).map(({ formId, recordId, hashes }) => ({
      formId,
      recordId,
      hashes,
    })),
    quarantine: await v.quarantine.list(),
    box: await v.quarantine.ciphertext("q.1"),
    session: await v.sessions.get("h1"),
    people: await v.people.list(),
    memberships: [
      ...await v.memberships.ofDatabase("db1"),
      ...await v.memberships.ofPerson("p2"),
    ],
    tokens: await v.personTokens.list("p1"),
    passkeys: await v.signInFactors.list("p1"),
    totp: await v.signInFactors.getTotp("p1"),
    recoveryCodes: await v.signInFactors.recoveryCodesLeft("p1"),
  };
}

Deno.test("copyVaultFromKv: every vault row reads back the same through the PostgreSQL ports; a second run copies nothing", async () => {
  const kv = await freshKv();
  const pg = await freshPg();
  try {
    const fromKv = vaultKvPorts(kv.kv);
    await fill(fromKv);
    const copied = await copyVaultFromKv(kv.kv, kv.dir, pg.sql);
    assert.deepEqual(copied, {
      databases: 1,
      facts: 1,
      forms: 1,
      formVersions: 2,
      records: 4,
      recordVersions: 3,
      fileReleases: 1,
      quarantine: 1,
      sessions: 1,
      passkeys: 1,
      totpFactors: 1,
      recoveryCodes: 2,
      recordEvents: 8,
      people: 2,
      memberships: 2,
      personTokens: 1,
      tickets: 1,
    });
    const toPg = vaultPgPorts(pg.sql);
    assert.deepEqual(await view(toPg), await view(fromKv));
    const big = (await toPg.records.get(F, "big"))!.values;
    assert.deepEqual(Object.keys(big), ["text", "z", "a"], "values as written");
    const outbox = await new KvRecordEventOutbox(kv.kv).scan({ skip: () => false, limit: 100 });
    const events = await pg.sql<{ event: RecordEvent }[]>`
      select event from vault_record_events order by event_id`;
    assert.deepEqual(events.map((r) => r.event), outbox.events.map((s) => s.event));
    // The tombstone came along: the envelope again is a duplicate, an amendment finds it deleted.
    assert.equal(
      await toPg.records.applySubmission(write("s1", { name: "S" }, 1), []),
      "duplicate",
    );
    assert.equal(await toPg.records.applySubmission(write("s1", { name: "X" }, 2), []), "deleted");
    assert.equal(await toPg.records.applySubmission(write("s2", { name: "T3" }, 3), []), "record");
    const again = await copyVaultFromKv(kv.kv, kv.dir, pg.sql);
    assert.ok(Object.values(again).every((n) => n === 0), JSON.stringify(again));
    // The ticket is consumed once, on PostgreSQL now.
    assert.deepEqual((await toPg.tickets.consume("h1", "invite"))?.data, { role: "editor" });
    assert.equal(await toPg.tickets.consume("old", "invite"), null);
    assert.equal(await toPg.memberships.remove("db1", "p1"), "last_owner");
  } finally {
    await pg.close();
    await kv.close();
  }
});
