import assert from "node:assert/strict";
import { KvBlobMeta } from "../../../../src/store/kv/blob_meta.ts";
import { KvIdentity } from "../../../../src/store/kv/identity.ts";
import { KvManifests } from "../../../../src/store/kv/manifests.ts";
import { PgBlobMeta } from "../../../../src/store/pg/blob_meta.ts";
import { copyRelayMetaFromKv } from "../../../../src/store/pg/from_kv/relay_meta.ts";
import { PgIdentity } from "../../../../src/store/pg/identity.ts";
import { PgManifests } from "../../../../src/store/pg/manifests.ts";
import type { BlobMetaPort } from "../../../../src/store/ports/blob_meta.ts";
import type { IdentityPort } from "../../../../src/store/ports/identity.ts";
import type { ManifestPort } from "../../../../src/store/ports/manifests.ts";
import { freshKv } from "../../contract/_kv.ts";
import { freshPg } from "../../contract/_pg.ts";

const AT = "2030-01-01T00:00:00.000Z";
const H = (c: string) => c.repeat(64);

/** Writes a little of everything through the KV ports. */
async function fill(identity: IdentityPort, manifests: ManifestPort, blobs: BlobMetaPort) {
  const user = (id: string) => ({ id, name: `user ${id}`, createdAt: AT });
  const token = (id: string, userId: string | null) => ({
    id,
    kind: userId ? "owner" as const : "admin" as const,
    userId,
    secretHash: "ab".repeat(32),
    createdAt: AT,
  });
  await identity.createUser(user("u1"), token("t1", "u1"));
  await identity.createUser(user("u2"), token("t2", "u2"));
  await identity.saveToken(token("ta", null));
  for (const [id, userId, fp] of [["d1", "u1", "fp1"], ["d2", "u1", "fp2"], ["d3", "u2", "fp3"]]) {
    const challenge = {
      id: `c${id}`,
      userId,
      name: "main",
      publicKey: "A".repeat(43) + "=",
      fingerprint: fp,
      answerHash: "cd".repeat(32),
      expiresAt: Date.now() + 60_000,
    };
    await identity.saveChallenge(challenge);
    const db = {
      id,
      userId,
      name: "main",
      publicKey: challenge.publicKey,
      fingerprint: fp,
      createdAt: AT,
    };
    assert.equal(await identity.completeRegistration(challenge, db), "registered");
  }
  await identity.saveChallenge({
    id: "pending",
    userId: "u2",
    name: "second",
    publicKey: "B".repeat(43) + "=",
    fingerprint: "fp9",
    answerHash: "ef".repeat(32),
    expiresAt: Date.now() + 600_000,
  });
  await manifests.put({
    formId: "contact",
    userId: "u1",
    fingerprint: "fp1",
    publicKey: "A".repeat(43) + "=",
    schemaVersion: 2,
    // Key order as published, and a wide character.
    manifest: { zeta: 1, alpha: "\u0101", formId: "contact", fields: [{ id: "name" }] },
    publishedAt: AT,
  }, null);
  const at = (ms: number) => new Date(Date.parse(AT) + ms);
  await blobs.recordUpload(
    { userId: "u1", hash: H("a") },
    { mime: "image/png", sizeBytes: 10 },
    1e6,
    at(0),
  );
  await blobs.recordUpload(
    { userId: "u1", hash: H("b") },
    { mime: null, sizeBytes: 20 },
    1e6,
    at(1),
  );
  await blobs.recordUpload(
    { userId: "u2", hash: H("a") },
    { mime: "text/plain", sizeBytes: 5 },
    1e6,
    at(2),
  );
  await blobs.claim("u1", [H("a")], at(10), "contact/r1");
  await blobs.claim("u1", [H("a")], at(11), "contact/r2");
}

/** Everything readable through one set of ports. */
async function read(identity: IdentityPort, manifests: ManifestPort, blobs: BlobMetaPort) {
  const recipients = await identity.listRecipients();
  return {
    users: await Promise.all(["u1", "u2"].map((id) => identity.getUser(id))),
    tokens: await Promise.all(["t1", "t2", "ta"].map((id) => identity.getToken(id))),
    databases: [...await identity.listDatabases("u1"), ...await identity.listDatabases("u2")],
    recipients,
    routes: await Promise.all(recipients.map((fp) => identity.recipientOwner(fp))),
    challenge: await identity.getChallenge("pending"),
    form: await manifests.get("contact"),
    blobs: await Promise.all(
      [["u1", H("a")], ["u1", H("b")], ["u2", H("a")]].map(([userId, hash]) =>
        blobs.get({ userId, hash })
      ),
    ),
    usage: [await blobs.usage("u1"), await blobs.usage("u2"), await blobs.totalUsage()],
    orphans: await Array.fromAsync(blobs.orphans(Date.parse(AT) + 1e9)),
  };
}

Deno.test("copyRelayMetaFromKv: what the KV ports stored reads the same through the PG ports, copied once", async () => {
  const kv = await freshKv();
  const pg = await freshPg();
  try {
    const kvPorts = [new KvIdentity(kv.kv), new KvManifests(kv.kv), new KvBlobMeta(kv.kv)] as const;
    const pgPorts = [
      new PgIdentity(pg.sql),
      new PgManifests(pg.sql),
      new PgBlobMeta(pg.sql),
    ] as const;
    await fill(...kvPorts);
    const copied = await copyRelayMetaFromKv(kv.kv, kv.dir, pg.sql);
    assert.deepEqual(copied, {
      users: 2,
      tokens: 3,
      databases: 3,
      challenges: 1,
      forms: 1,
      blobs: 3,
      blob_usage: 2,
      blob_claims: 2,
    });
    const expected = await read(...kvPorts);
    assert.deepEqual(await read(...pgPorts), expected);
    assert.deepEqual(Object.keys((await pgPorts[1].get("contact"))!.manifest), [
      "zeta",
      "alpha",
      "formId",
      "fields",
    ], "the manifest keeps its key order");
    // Run again (a copy cut short is resumed the same way): nothing more, nothing changed.
    const again = await copyRelayMetaFromKv(kv.kv, kv.dir, pg.sql);
    assert.ok(Object.values(again).every((n) => n === 0), JSON.stringify(again));
    assert.deepEqual(await read(...pgPorts), expected);
    // A publish over the copied row applies (it compares equal to what it read).
    const form = (await pgPorts[1].get("contact"))!;
    assert.equal(await pgPorts[1].put({ ...form, schemaVersion: 3 }, form), true);
    // The copied claims work on: releasing both makes the blob an orphan.
    const [, , blobs] = pgPorts;
    await blobs.release("u1", [H("a")], new Date(AT), "contact/r1");
    const { unclaimed } = await blobs.release("u1", [H("a")], new Date(AT), "contact/r2");
    assert.deepEqual(unclaimed, [H("a")]);
  } finally {
    await pg.close();
    await kv.close();
  }
});
