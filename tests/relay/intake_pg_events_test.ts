/**
 * Intake's `queued` events on PostgreSQL: every relay process sharing the database hears the
 * commits of the others (role `all`'s ingest wakes on them), through the envelope port's
 * NOTIFY. Two pools on one schema stand for two processes.
 */
import assert from "node:assert/strict";
import { EditTokens } from "../../src/auth/index.ts";
import { FormDirectory } from "../../src/relay/manifests.ts";
import { Intake } from "../../src/relay/submissions.ts";
import { PgEnvelopes } from "../../src/store/pg/envelopes.ts";
import { PgIdentity } from "../../src/store/pg/identity.ts";
import { PgManifests } from "../../src/store/pg/manifests.ts";
import type { Sql } from "../../src/store/pg/db.ts";
import { freshPg } from "../store/contract/_pg.ts";

function intakeOn(sql: Sql, envelopes: PgEnvelopes): Intake {
  const forms = new FormDirectory({
    manifests: new PgManifests(sql),
    identity: new PgIdentity(sql),
  });
  return new Intake(envelopes, forms, new EditTokens(new Uint8Array(32)), {
    maxCiphertextBytes: 1024 * 1024,
    editWindowMs: 3600_000,
  });
}

Deno.test("intake on PostgreSQL announces the envelopes another process committed", async () => {
  const pg = await freshPg();
  const [sqlA, sqlB] = [pg.open(), pg.open()];
  const a = await PgEnvelopes.open(sqlA);
  const b = await PgEnvelopes.open(sqlB);
  try {
    const intakeA = intakeOn(sqlA, a);
    const heard = new Promise<string>((resolve) =>
      intakeA.events.addEventListener("queued", (e) => resolve((e as CustomEvent<string>).detail))
    );
    const fp = "ef".repeat(16);
    const head = {
      id: "0123456789abcdef0123456789abcdef",
      formId: "contact",
      fingerprint: fp,
      createdAt: new Date().toISOString(),
      version: 1,
      digest: "d",
      latestDigest: "d",
    };
    const envelope = {
      formId: "contact",
      recipientPubkey: "pk",
      submitterId: null,
      ciphertext: new Uint8Array(48),
    };
    assert.equal(await b.writeVersion(head, null, envelope), true, "written by the other process");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<string>((resolve) => timer = setTimeout(() => resolve(""), 5000));
    assert.equal(await Promise.race([heard, timeout]), fp);
    clearTimeout(timer);
  } finally {
    await a.close();
    await b.close();
    await pg.close();
  }
});
