/**
 * The console's form status over real HTTP: "Close form" with a message (escaped), "Closed"
 * on the front page and the overview, "Reopen form", "Delete form" with its confirmation
 * (records kept and listed), the demo form's delete from the front page, and CSRF on each.
 */
import { ownerGate } from "../_support/people.ts";
import assert from "node:assert/strict";
import { fetchManifest, submitForm } from "../../src/sdk/mod.ts";
import { call, startInstance } from "../_support/server.ts";
import { ConsoleClient, firstPerson } from "./_client.ts";

const XSS = "<img src=x onerror=alert(1)>";

Deno.test("console: close with a message, reopen, delete after a confirmation; records kept", async () => {
  const inst = await startInstance();
  const token = inst.credentials.ownerToken;
  try {
    const demo = await inst.server.vault!.bootstrap(
      await ownerGate(inst.server.vault!, inst.credentials.userId),
    );
    const id = demo.formId;
    const base = `/console/forms/${id}`;
    const manifest = await fetchManifest(id, { relayUrl: inst.url, pin: demo.manifestFingerprint });
    await submitForm(manifest, { name: "Ada", email: "ada@example.com" });
    await call(`${inst.url}/vault/ingest`, { method: "POST", token });
    const browser = new ConsoleClient(inst.url);
    const csrf = await browser.signIn(await firstPerson(inst));

    // The front page: the demo form is marked, open, and can be deleted from there.
    const front = await browser.page("/console");
    assert.match(front, /<span class="tag">demo<\/span>/);
    assert.match(front, /<td>Open<\/td>/);
    assert.match(front, new RegExp(`<form method="get" action="${base}/delete"`));
    assert.match(front, /<button type="submit" class="danger">Delete form<\/button>/);

    // Close with a message: the relay refuses, the console says "Closed" and shows it escaped.
    const overview = await browser.page(base);
    assert.match(overview, /Status: Open/);
    assert.match(overview, /<button type="submit">Close form<\/button>/);
    const noCsrf = await browser.post(`${base}/close`, { message: "x" }, null);
    await noCsrf.body?.cancel();
    assert.equal(noCsrf.status, 403);
    const closed = await browser.post(`${base}/close`, { message: `Full.\n${XSS}` }, csrf);
    await closed.body?.cancel();
    assert.equal(closed.status, 303);
    assert.match(closed.headers.get("location")!, new RegExp(`^${base}\\?done=`));
    const refused = await submitForm(manifest, { name: "Bob", email: "b@example.com" })
      .then(() => null, (e) => e);
    assert.equal(refused?.code, "form_closed");
    assert.equal(refused?.serverMessage, `Full.\n${XSS}`);
    const closedPage = await browser.page(base);
    assert.match(closedPage, /Status: Closed/);
    assert.match(closedPage, /<td>Closed<\/td>/);
    assert.match(closedPage, /Full\.\n&lt;img src=x onerror=alert\(1\)&gt;/);
    assert.ok(!closedPage.includes(XSS), "the message is escaped");
    assert.match(closedPage, />Reopen form<\/button>/);
    assert.match(await browser.page("/console"), /<td>Closed<\/td>/);
    assert.match(await browser.page(`${base}/share`), /This form is closed/);
    const tooLong = await browser.post(`${base}/close`, { message: "y".repeat(501) }, csrf);
    assert.equal(tooLong.status, 400);
    assert.match(await tooLong.text(), /at most 500 fit/);

    // Reopen: it takes submissions again.
    const reopened = await browser.post(`${base}/reopen`, {}, csrf);
    await reopened.body?.cancel();
    assert.equal(reopened.status, 303);
    assert.match(await browser.page(base), /Status: Open/);
    await submitForm(manifest, { name: "Cy", email: "cy@example.com" });
    await call(`${inst.url}/vault/ingest`, { method: "POST", token });

    // Delete: a confirmation first (nothing changes on the GET), saying records are kept.
    const confirm = await browser.page(`${base}/delete`);
    assert.match(confirm, /Its 2 records are kept/);
    assert.match(confirm, /not found/);
    assert.match(confirm, /unpublished at once/);
    assert.match(confirm, />Delete form<\/button>/);
    assert.match(confirm, />Keep it<\/a>/);
    assert.equal((await call(`${inst.url}/forms/${id}/manifest`)).status, 200);
    const deleted = await browser.post(`${base}/delete`, {}, csrf);
    await deleted.body?.cancel();
    assert.equal(deleted.status, 303);
    assert.match(deleted.headers.get("location")!, /^\/console\?done=/);
    assert.equal((await call(`${inst.url}/forms/${id}/manifest`)).status, 404);
    const after = await browser.page("/console");
    assert.ok(!after.includes(`href="${base}"`), "out of the form list");
    assert.doesNotMatch(after, /The demo form/);
    assert.match(after, /Deleted forms with records/);
    assert.match(after, new RegExp(`href="${base}/records"`));
    assert.match(after, /2 records/);
    const records = await browser.page(`${base}/records`);
    assert.match(records, /Ada/);
    assert.match(await browser.page(base), /Status: Deleted/);
  } finally {
    await inst.close();
  }
});
