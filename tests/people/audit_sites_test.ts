/**
 * The vault's action sites report to its audit sink (src/audit/sink.ts): who did what on
 * which database, never a value.
 */
import assert from "node:assert/strict";
import type { AuditEvent } from "../../src/audit/sink.ts";
import { NEED } from "../../src/people/access.ts";
import { bootstrapPeople } from "../../src/people/bootstrap.ts";
import { createUser } from "../../src/relay/identity.ts";
import { FormDirectory } from "../../src/relay/manifests.ts";
import { openStore } from "../../src/store/kv/file.ts";
import { relayKvPorts } from "../../src/store/kv/relay_ports.ts";
import { vaultKvPorts } from "../../src/store/kv/vault_ports.ts";
import { LocalRelayLink, Vault, VaultKeys } from "../../src/vault/index.ts";

Deno.test("vault actions report who did what on which database, never a value", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-audit-sites-" });
  const kv = await openStore(dir);
  try {
    const relay = await relayKvPorts(kv, dir);
    const link = new LocalRelayLink(relay, new FormDirectory(relay), "http://127.0.0.1:9", null);
    const events: AuditEvent[] = [];
    const vault = new Vault(vaultKvPorts(kv), new VaultKeys(dir, null), link, {
      batchSize: 10,
      pollIntervalMs: 60_000,
      audit: { record: (event) => events.push(event) },
    });
    const { user } = await createUser(relay.identity, "");
    const first = await bootstrapPeople({
      vault: vault.store,
      identity: relay.identity,
      first: { userId: user.id, ownerToken: "" },
      host: "audit.example",
    });
    const gate = vault.access.gate(first, NEED.deleteForm);
    const db = await vault.createDatabase(first, "main");
    const fields = [{ id: "name", kind: "text", label: "Name" }];
    const form = await vault.createForm(gate, { databaseId: db.id, title: "T", fields });
    await vault.publish(gate, form.formId);
    await vault.forms.update(gate, form.formId, { fields });
    const record = await vault.createRecord(gate, form.formId, { name: "Secret value" });
    await vault.editRecord(gate, form.formId, record._recordId, { name: "Other value" });
    await vault.deleteRecord(gate, form.formId, record._recordId);
    await vault.lifecycle.close(gate, form.formId, "");
    await vault.lifecycle.reopen(gate, form.formId);
    await vault.lifecycle.delete(gate, form.formId);
    assert.deepEqual(events.map((e) => e.action), [
      "database_created",
      "form_created",
      "form_published",
      "form_updated",
      "record_created",
      "record_updated",
      "record_deleted",
      "form_closed",
      "form_reopened",
      "form_deleted",
    ]);
    for (const event of events) {
      assert.equal(event.personId, user.id);
      assert.equal(event.databaseId, db.id);
    }
    assert.ok(!JSON.stringify(events).includes("value"), "no record value is reported");
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
