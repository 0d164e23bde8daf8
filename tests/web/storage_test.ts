/**
 * The default form page in Chromium keeps nothing in the browser: after typing, uploading and
 * submitting, the origin's localStorage, sessionStorage, IndexedDB, cookies and quota-managed
 * storage are all empty. Its trust line names the owner, the form key's short fingerprint and
 * the file mode, as the signed manifest states them.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { shortFingerprint } from "../../src/crypto/keys.ts";
import { shareLink } from "../../src/web/links.ts";
import { call } from "../_support/server.ts";
import { recordFileBytes, recordOf, submitForReceipt, webFixture, whenReady } from "./_fixture.ts";
import { EMPTY_STORAGE, storageOf } from "./_storage.ts";

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "topic", label: "Topic", kind: "choice", options: ["question", "bug"] },
  { id: "doc", label: "Document", kind: "attachment" },
];

/** The short fingerprint of the form's key, as the owner's vault knows it. */
async function formKey(fx: { inst: { url: string }; token: string }): Promise<string> {
  const dbs = await call(`${fx.inst.url}/vault/databases`, { token: fx.token });
  return shortFingerprint(dbs.body.items[0].fingerprint);
}

Deno.test("a default form page keeps nothing in the browser, before and after a submit", async () => {
  const fx = await webFixture(FIELDS, "Tips", undefined, {}, "Grace Hopper");
  try {
    const page = await fx.browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(shareLink(fx.inst.url, fx.formId, fx.pin));
    await whenReady(page);
    assert.equal(await page.locator("#sp-draft").isVisible(), false, "no draft panel");
    await page.getByLabel("Name").fill("Ada");
    await page.getByLabel("bug", { exact: true }).check();
    await page.getByLabel("Document", { exact: true }).setInputFiles({
      name: "notes.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("private notes"),
    });
    await page.locator("#sp-doc-status", { hasText: "Ready to upload" }).waitFor();
    assert.deepEqual(await storageOf(page), EMPTY_STORAGE, "while filling in");
    const { id } = await submitForReceipt(page);
    assert.deepEqual(await storageOf(page), EMPTY_STORAGE, "after the submit");
    const record = await recordOf(fx, id);
    assert.equal(record.values.name, "Ada");
    assert.equal(record.values.doc.encryption, "age");
    assert.deepEqual(
      await recordFileBytes(fx, id, "doc"),
      new TextEncoder().encode("private notes"),
    );
    assert.deepEqual(errors, []);
  } finally {
    await fx.close();
  }
});

Deno.test("the trust line names the owner, the form key's fingerprint and the file mode", async () => {
  const fx = await webFixture(FIELDS, "Tips", undefined, {}, "Grace Hopper");
  try {
    const page = await fx.browser.newPage();
    await page.goto(shareLink(fx.inst.url, fx.formId, fx.pin));
    await whenReady(page);
    const key = await formKey(fx);
    const line = page.locator("#sp-trust");
    assert.equal(await line.isVisible(), true);
    const text = await line.textContent() ?? "";
    assert.match(text, /^Only Grace Hopper can read your answers/);
    assert.ok(text.includes(`form key ${key} before they leave`), text);
    assert.match(text, /Files you attach are encrypted the same way\.$/);
    assert.equal(await line.locator("strong").textContent(), "Grace Hopper");
    assert.equal(await line.locator("code").textContent(), key);

    // Switched to plain files, the line says so (a new signed version).
    const plain = await call(`${fx.inst.url}/vault/forms/${fx.formId}`, {
      method: "PUT",
      token: fx.token,
      json: { fields: FIELDS, files: "plain", publish: true },
    });
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    await page.reload();
    await whenReady(page);
    assert.match(
      await line.textContent() ?? "",
      /Files you attach are not encrypted: the server that stores them can read them\.$/,
    );

    // A wrong pin: no trust line at all.
    const wrong = await fx.browser.newPage();
    await wrong.goto(shareLink(fx.inst.url, fx.formId, "00".repeat(32)));
    await wrong.locator("#sp-notice.bad").waitFor();
    assert.equal(await wrong.locator("#sp-trust").isVisible(), false);
  } finally {
    await fx.close();
  }
});
