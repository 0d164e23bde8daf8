/**
 * The form page after a move, in Chromium: a form published while `base_url` named an
 * address nobody serves submits through its page once the instance restarts at its real
 * address (the page posts where the republished manifest says), and the record arrives.
 */
import assert from "node:assert/strict";
import { shareLink } from "../../src/web/links.ts";
import { launchChromium } from "../_support/chromium.ts";
import { freePort } from "../_support/process.ts";
import { call, startInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";
import { submitForReceipt, waitFor, whenReady } from "./_fixture.ts";

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "note", label: "Note", kind: "richText" },
];

Deno.test("a form published at an old base_url submits through its page after the move", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-moved-" });
  const profile = await Deno.makeTempDir({ prefix: "sealpost-moved-chromium-" });
  // Nothing listens on `gone`: the address the instance had before it moved.
  const gone = `http://127.0.0.1:${freePort()}`;
  let inst = await startInstance({ SEALPOST_BASE_URL: gone }, dir);
  const { form, pin, token } = await vaultForm(inst, "Moved", FIELDS);
  assert.equal((await call(`${inst.url}/forms/${form.formId}/manifest`)).body.relayUrl, gone);
  await inst.close();

  const port = freePort();
  inst = await startInstance({ SEALPOST_BASE_URL: `http://127.0.0.1:${port}` }, dir, port);
  const browser = await launchChromium(profile);
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(shareLink(inst.url, form.formId, pin));
    await whenReady(page);
    await page.getByLabel("Name").fill("Grace Hopper");
    await page.getByLabel("Note").fill("Sent after the move");
    const { id } = await submitForReceipt(page);
    const record = await waitFor(async () => {
      const res = await call(`${inst.url}/vault/forms/${form.formId}/records/${id}`, { token });
      return res.status === 200 ? res.body : null;
    }, `record ${id}`);
    assert.deepEqual(record.values, { name: "Grace Hopper", note: "Sent after the move" });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await inst.close();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(profile, { recursive: true });
  }
});
