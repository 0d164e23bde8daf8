/**
 * The builder's two switches over real HTTP: "Encrypt uploaded files" (on for a new form) and
 * "Let senders keep a draft on this device" (off) round-trip through publish into the vault's
 * form, the signed manifest and the builder shown again; the overview states them.
 */
import assert from "node:assert/strict";
import { call, startInstance } from "../_support/server.ts";
import { ConsoleClient, firstPerson } from "./_client.ts";
import { builderBody, newDatabase } from "./_fixture.ts";

const FIELDS = [{ id: "doc", kind: "attachment", label: "Document" }];

/** The `checked` state of the builder's checkbox `name` in `html`. */
function checked(html: string, name: string): boolean {
  const input = new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html);
  assert.ok(input, `a checkbox "${name}"`);
  return / checked(=""|\s|>|\/)/.test(input[0]);
}

Deno.test("builder switches: files encrypted and no drafts by default; both round-trip", async () => {
  const inst = await startInstance();
  const token = inst.credentials.ownerToken;
  try {
    const databaseId = await newDatabase(inst);
    const browser = new ConsoleClient(inst.url);
    const csrf = await browser.signIn(await firstPerson(inst));

    const fresh = await browser.page("/console/forms/new");
    assert.match(fresh, /<label class="check" for="encryptFiles">[^]*Encrypt uploaded files/);
    assert.match(fresh, /Let senders keep a draft on this device/);
    assert.equal(checked(fresh, "encryptFiles"), true, "on for a new form");
    assert.equal(checked(fresh, "drafts"), false, "off for a new form");

    // An add keeps what the owner switched (both posted as the checkboxes are).
    const added = await browser.post("/console/forms/new", {
      ...builderBody("Tips", FIELDS, "add"),
      newKind: "text",
      drafts: "on",
    }, csrf);
    const addedPage = await added.text();
    assert.equal(checked(addedPage, "encryptFiles"), false);
    assert.equal(checked(addedPage, "drafts"), true);

    const published = await browser.post("/console/forms/new", {
      ...builderBody("Tips", FIELDS, "publish"),
      encryptFiles: "on",
      databaseId,
      formId: "tips",
    }, csrf);
    await published.body?.cancel();
    assert.equal(published.status, 303);
    let form = await call(`${inst.url}/vault/forms/tips`, { token });
    assert.equal(form.body.files, "encrypted");
    assert.equal(form.body.drafts, false);
    let manifest = await call(`${inst.url}/forms/tips/manifest`);
    assert.equal(manifest.body.files, "encrypted");
    assert.equal(manifest.body.drafts, undefined);
    const overview = await browser.page("/console/forms/tips");
    assert.match(overview, /encrypted in the sender&#39;s browser/);
    assert.match(overview, /the form page keeps nothing in the sender&#39;s browser/);
    const db = await call(`${inst.url}/vault/databases`, { token });
    const short = db.body.items[0].fingerprint.slice(0, 16).match(/.{4}/g).join(" ");
    assert.ok(overview.includes(`<code>${short}</code>`), "the form key, as senders see it");

    let builder = await browser.page("/console/forms/tips/builder");
    assert.equal(checked(builder, "encryptFiles"), true);
    assert.equal(checked(builder, "drafts"), false);

    // Switch both: plain files, drafts allowed; a new signed version says so.
    const v2 = await browser.post("/console/forms/tips/builder", {
      ...builderBody("Tips", FIELDS, "publish"),
      drafts: "on",
    }, csrf);
    await v2.body?.cancel();
    assert.equal(v2.status, 303);
    form = await call(`${inst.url}/vault/forms/tips`, { token });
    assert.equal(form.body.files, "plain");
    assert.equal(form.body.drafts, true);
    manifest = await call(`${inst.url}/forms/tips/manifest`);
    assert.equal(manifest.body.schemaVersion, 2);
    assert.equal(manifest.body.files, "plain");
    assert.equal(manifest.body.drafts, true);
    builder = await browser.page("/console/forms/tips/builder");
    assert.equal(checked(builder, "encryptFiles"), false);
    assert.equal(checked(builder, "drafts"), true);
    assert.match(await browser.page("/console/forms/tips"), /stored as sent \(not encrypted\)/);
  } finally {
    await inst.close();
  }
});
