/**
 * The console's Audit page over HTTP: a changed entry in the store is named on the page, and
 * a filter or page no entry can have is a 400, never a 5xx.
 */
import assert from "node:assert/strict";
import { auditKeys } from "../../src/store/kv/keys.ts";
import type { AuditEntry } from "../../src/store/ports/audit.ts";
import { startInstance } from "../_support/server.ts";
import { ConsoleClient, firstPerson } from "./_client.ts";

Deno.test("console Audit page: says when the chain does not verify; bad filters are a 400", async () => {
  const inst = await startInstance();
  try {
    const vault = inst.server.vault!;
    for (let n = 0; n < 3; n++) {
      await vault.audit.record({ action: "record_viewed", personId: null });
    }
    const browser = new ConsoleClient(inst.url);
    await browser.signIn(await firstPerson(inst));
    assert.match(await browser.page("/console/audit"), /The audit log verifies now: \d+ entries/);

    // An entry changed in the store behind the vault's back.
    assert.equal(inst.server.store.backend, "kv");
    const kv = (inst.server.store as { kv: Deno.Kv }).kv;
    const [entry] = await vault.store.audit.list({ limit: 1, newestFirst: true });
    const stored = (await kv.get<AuditEntry>(auditKeys.entry(entry.seq))).value!;
    await kv.set(auditKeys.entry(entry.seq), {
      ...stored,
      event: {
        ...stored.event,
        action: stored.event.action === "sign_in" ? "sign_out" : "sign_in",
      },
    });
    const page = await browser.page("/console/audit");
    assert.match(
      page,
      new RegExp(`The audit log does not verify now: Entry seq ${entry.seq} was changed`),
    );
    assert.ok(!page.includes("verifies now"));

    for (const query of ["action=read_minds", "before=0", "before=-1", "before=1e3"]) {
      await browser.page(`/console/audit?${query}`, 400);
    }
    // Filters nobody matches: an empty page, said so.
    assert.match(
      await browser.page("/console/audit?person=nobody&database=none"),
      /No entry matches these filters\./,
    );
  } finally {
    await inst.close();
  }
});
