/**
 * The audit log in use, over real HTTP: the vault's, the webhooks' and the console's actions
 * each write their entry (who, which database, on what), read back through GET /vault/audit;
 * and the whole exported log holds none of the distinctive values, tokens and secrets the
 * actions handled.
 */
import assert from "node:assert/strict";
import { exportAudit } from "../../src/audit/export.ts";
import type { AuditAction, AuditEntry } from "../../src/store/ports/audit.ts";
import { ConsoleClient, firstPerson } from "../console/_client.ts";
import { call, startInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";

const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, fn, sanitizeResources: false, sanitizeOps: false });

/** Values that must never reach the log: each is searched for in the export. */
const VALUE = "VALUE-3f9c1e-never-logged";
const EDITED = "EDITED-8a2d44-never-logged";
const BEARER = "BEARER-5b7e90-never-logged";
const HEADER = "HEADER-c4d1f2-never-logged";
const CONSOLE_BEARER = "CONSOLE-BEARER-e1a9b3-never-logged";

test("audit: every vault, webhook and console action writes its entry, with no content", async () => {
  const inst = await startInstance();
  const token = inst.credentials.ownerToken;
  const me = inst.server.firstPerson!;
  const url = inst.url;
  const ok = (res: { status: number; body: unknown }, status: number, what: string) =>
    assert.equal(res.status, status, `${what}: ${JSON.stringify(res.body)}`);
  try {
    // The vault's owner API: a database, a form published, changed, records made, read,
    // edited and deleted, the form closed, reopened and (at the end) deleted.
    const { db, form } = await vaultForm(inst, "Audited", [
      { id: "name", label: "Name", kind: "text" },
    ]);
    const formId = form.formId as string;
    const forms = `${url}/vault/forms/${formId}`;
    ok(await call(forms, { method: "PATCH", token, json: { retentionDays: 30 } }), 200, "patch");
    const record = await call(`${forms}/records`, {
      method: "POST",
      token,
      json: { values: { name: VALUE } },
    });
    ok(record, 201, "record");
    const recordId = record.body._recordId as string;
    ok(await call(`${forms}/records/${recordId}`, { token }), 200, "record view");
    ok(
      await call(`${forms}/records/${recordId}`, {
        method: "PATCH",
        token,
        json: { values: { name: EDITED } },
      }),
      200,
      "record edit",
    );
    // The records read through the API (as `sealpost records export` does): one entry a read.
    const listed = await call(`${forms}/records?limit=1`, { token });
    ok(listed, 200, "records");
    const next = `${forms}/records?limit=1&cursor=${listed.body.nextCursor}`;
    ok(await call(next, { token }), 200, "the next page (no entry of its own)");
    ok(await call(`${forms}/close`, { method: "POST", token, json: {} }), 200, "close");
    ok(await call(`${forms}/reopen`, { method: "POST", token }), 200, "reopen");

    // Webhooks over the API: made with a generated secret, changed, a new secret, removed.
    const hook = await call(`${url}/owner/forms/${formId}/webhooks`, {
      method: "POST",
      token,
      json: {
        url: "https://crm.example/in",
        bearer: BEARER,
        headers: [`X-Key: ${HEADER}`],
        generateSigningSecret: true,
      },
    });
    ok(hook, 201, "webhook");
    const apiSecret = hook.body.generatedSigningSecret as string;
    const hookUrl = `${url}/owner/webhooks/${hook.body.id}`;
    ok(await call(hookUrl, { method: "PATCH", token, json: { name: "CRM" } }), 200, "hook edit");
    const renewed = await call(hookUrl, {
      method: "PATCH",
      token,
      json: { generateSigningSecret: true },
    });
    ok(renewed, 200, "new secret");
    const renewedSecret = renewed.body.generatedSigningSecret as string;
    ok(await call(hookUrl, { method: "DELETE", token }), 204, "hook delete");

    // The console: a record viewed, the records exported, a webhook added (its secret shown
    // once) and removed, the record deleted.
    const browser = new ConsoleClient(url);
    const csrf = await browser.signIn(await firstPerson(inst));
    const recordPage = await browser.page(`/console/forms/${formId}/records/${recordId}`);
    assert.ok(recordPage.includes(EDITED));
    assert.ok((await browser.page(`/console/forms/${formId}/export.jsonl`)).includes(EDITED));
    const saved = await browser.post(`/console/forms/${formId}/webhooks`, {
      name: "Console hook",
      url: "https://console.example/in",
      method: "POST",
      mode: "default",
      template: "",
      mappings: "",
      events: ["create", "update"],
      signatureHeader: "X-Sig",
      headers: "",
      bearer: CONSOLE_BEARER,
      generateSigningSecret: "on",
      concurrency: "1",
      action: "save",
    }, csrf);
    const savedPage = await saved.text();
    assert.equal(saved.status, 200, savedPage.slice(0, 500));
    const consoleSecret = /<p class="secret">(whsec_[^<]+)<\/p>/.exec(savedPage)![1];
    const consoleHook = /action="\/console\/webhooks\/([0-9a-f]{24})"/.exec(savedPage)![1];
    const removed = await browser.post(`/console/webhooks/${consoleHook}/delete`, {}, csrf);
    assert.equal(removed.status, 303);
    const deleted = await browser.post(
      `/console/forms/${formId}/records/${recordId}/delete`,
      {},
      csrf,
    );
    assert.equal(deleted.status, 303);
    ok(await call(forms, { method: "DELETE", token }), 204, "form delete");

    // The log, as an instance admin reads it.
    await inst.server.vault!.audit.idle();
    const log = await call(`${url}/vault/audit?limit=500`, { token });
    ok(log, 200, "audit");
    const entries = (log.body.items as AuditEntry[]).filter((e) => e.event.databaseId === db.id);
    const of = (action: AuditAction) => entries.filter((e) => e.event.action === action);
    const tokenId = token.split("_")[1];
    const recordTarget = `${formId}/${recordId}`;
    const expect: [AuditAction, number, string | null][] = [
      ["database_created", 1, null],
      ["form_created", 1, formId],
      ["form_published", 1, formId],
      ["form_updated", 1, formId],
      ["record_created", 1, recordTarget],
      ["record_viewed", 2, recordTarget],
      ["record_updated", 1, recordTarget],
      ["form_closed", 1, formId],
      ["form_reopened", 1, formId],
      ["webhook_created", 2, null],
      ["webhook_updated", 2, hook.body.id],
      ["webhook_secret_revealed", 3, null],
      ["webhook_deleted", 2, null],
      ["records_exported", 2, formId],
      ["record_deleted", 1, recordTarget],
      ["form_deleted", 1, formId],
    ];
    for (const [action, count, target] of expect) {
      const found = of(action);
      assert.equal(found.length, count, `${action}: ${JSON.stringify(found)}`);
      for (const entry of found) {
        assert.equal(entry.event.personId, me.personId, action);
        if (target) assert.equal(entry.event.target?.id, target, action);
      }
    }
    // The API's entries name the token; the console's (a session) name none.
    const views = of("record_viewed");
    assert.deepEqual(views.map((e) => e.event.tokenId ?? null).sort(), [tokenId, null].sort());
    assert.deepEqual(
      of("records_exported").map((e) => [e.event.detail?.format, e.event.tokenId ?? null]),
      [["jsonl", null], ["api", tokenId]],
      "newest first: the console's download, the API's read",
    );
    const reveals = of("webhook_secret_revealed").map((e) => e.event.target?.id);
    assert.deepEqual(reveals.sort(), [hook.body.id, hook.body.id, consoleHook].sort());

    // The whole log, exported: none of the values, tokens or secrets it saw.
    let text = "";
    await exportAudit(
      inst.server.vault!.store.audit,
      await inst.server.vault!.keys.manifestKey(),
      (line) => void (text += line),
    );
    const secrets = {
      VALUE,
      EDITED,
      BEARER,
      HEADER,
      CONSOLE_BEARER,
      apiSecret,
      renewedSecret,
      consoleSecret,
      ownerToken: token,
      ownerTokenSecret: token.split("_").at(-1)!,
      adminToken: inst.credentials.adminToken,
      csrf,
      session: [...browser.cookies.values()].join(";"),
    };
    for (const [name, secret] of Object.entries(secrets)) {
      assert.ok(!text.includes(secret), `the audit export holds ${name}`);
    }
    assert.ok(!/whsec_|spo_|spt_|spa_/.test(text), "no token or signing secret of any kind");
  } finally {
    await inst.close();
  }
});
