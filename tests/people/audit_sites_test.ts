/**
 * The vault's action sites report to its audit sink (src/audit/sink.ts): who did what on
 * which database, never a value.
 */
import assert from "node:assert/strict";
import { NEED } from "../../src/people/access.ts";
import { auditedVault } from "./_audited_vault.ts";

Deno.test("vault actions report who did what on which database, never a value", async () => {
  const { vault, events, first, close } = await auditedVault();
  try {
    const user = { id: first.personId };
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
    await close();
  }
});
