/**
 * Drafts in Chromium, on a form whose owner lets senders keep one (`drafts: true`): the
 * unsent answers are kept encrypted, with the key only in the page's address; a reload with
 * that address restores them, the share link without it cannot open them, and a submit or
 * "Forget this draft" leaves nothing behind. axe finds no serious violation in the panel.
 */
import assert from "node:assert/strict";
import axe from "axe-core";
import type { Page } from "playwright-core";
import { parseFragment, shareLink } from "../../src/web/links.ts";
import { call } from "../_support/server.ts";
import { recordOf, submitForReceipt, type WebFixture, webFixture, whenReady } from "./_fixture.ts";
import { EMPTY_STORAGE, storageOf } from "./_storage.ts";

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "topic", label: "Topic", kind: "choice", options: ["question", "bug"] },
  { id: "agree", label: "I agree", kind: "boolean" },
  { id: "place", label: "Where", kind: "geo" },
  { id: "when", label: "Meeting time", kind: "dateTime" },
];
const SECRET = "Draft-Marker-7731";

/** The stored draft of the fixture's form, or null. */
async function stored(page: Page, fx: WebFixture): Promise<string | null> {
  return await page.evaluate(`localStorage.getItem("sealpost:draft:${fx.formId}")`) as
    | string
    | null;
}

/** Fills the form and waits until the draft is written (the key then is in the address). */
async function fillAndKeep(page: Page, fx: WebFixture): Promise<void> {
  await page.getByLabel("Name").fill(SECRET);
  await page.getByLabel("bug", { exact: true }).check();
  await page.getByLabel("I agree").check();
  await page.getByLabel("Latitude").fill("51.5");
  await page.getByLabel("Longitude").fill("-0.125");
  await page.getByLabel("Meeting time").fill("2025-06-01T10:30");
  await page.getByLabel("UTC offset").selectOption("+02:00");
  await page.locator("#sp-draft-text", { hasText: "Draft kept on this device" }).waitFor();
  // Until the draft, opened with the key in the address, holds the last change.
  await page.waitForFunction(`(async () => {
    const kept = localStorage.getItem("sealpost:draft:${fx.formId}");
    const key = new URLSearchParams(location.hash.slice(1)).get("draft");
    if (!kept || !key) return false;
    const bytes = (t) => Uint8Array.from(
      atob(t.replaceAll("-", "+").replaceAll("_", "/") + "=".repeat((4 - t.length % 4) % 4)),
      (c) => c.charCodeAt(0),
    );
    const sealed = JSON.parse(kept);
    const aes = await crypto.subtle.importKey("raw", bytes(key), "AES-GCM", false, ["decrypt"]);
    const plain = await crypto.subtle.decrypt({
      name: "AES-GCM",
      iv: bytes(sealed.iv),
      additionalData: new TextEncoder().encode("sealpost draft v1 ${fx.formId}"),
    }, aes, bytes(sealed.data));
    return JSON.parse(new TextDecoder().decode(plain)).when === "2025-06-01T10:30+02:00";
  })()`);
}

async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const found = await page.evaluate("axe.run(document).then((r) => r.violations)") as {
    id: string;
    impact: string | null;
  }[];
  return found.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id);
}

Deno.test("a draft survives a reload only with its key, unreadable without it; a submit wipes it", async () => {
  const fx = await webFixture(FIELDS, "Drafts", undefined, { drafts: true });
  try {
    const manifest = await call(`${fx.inst.url}/forms/${fx.formId}/manifest`);
    assert.equal(manifest.body.drafts, true, "signed into the manifest");
    const page = await fx.browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(shareLink(fx.inst.url, fx.formId, fx.pin));
    await whenReady(page);
    assert.equal(await page.locator("#sp-draft").isVisible(), true);
    assert.match(await page.locator("#sp-draft-text").textContent() ?? "", /can keep a draft/);
    assert.equal(await page.getByRole("button", { name: "Forget this draft" }).isVisible(), false);
    assert.deepEqual(await storageOf(page), EMPTY_STORAGE, "nothing before the sender types");

    await fillAndKeep(page, fx);
    const key = parseFragment(new URL(page.url()).hash).draft;
    assert.match(key, /^[A-Za-z0-9_-]{43}$/, "a 256-bit key in the address");
    assert.equal(parseFragment(new URL(page.url()).hash).pin, fx.pin, "the pin is kept");
    const kept = (await stored(page, fx))!;
    const sealed = JSON.parse(kept);
    assert.deepEqual(Object.keys(sealed).sort(), ["data", "iv", "v"]);
    assert.ok(!kept.includes(SECRET) && !kept.includes(key), "ciphertext only, no key beside it");
    const state = await storageOf(page);
    assert.deepEqual(Object.keys(state.localStorage), [`sealpost:draft:${fx.formId}`]);
    assert.deepEqual({ ...state, localStorage: {} }, EMPTY_STORAGE, "nothing else is kept");
    assert.deepEqual(await seriousViolations(page), [], "axe, draft kept");

    // The same address (a reload keeps it): the draft comes back.
    await page.reload();
    await whenReady(page);
    assert.match(await page.locator("#sp-draft-text").textContent() ?? "", /draft was restored/);
    assert.equal(await page.getByLabel("Name").inputValue(), SECRET);
    assert.equal(await page.getByLabel("bug", { exact: true }).isChecked(), true);
    assert.equal(await page.getByLabel("I agree").isChecked(), true);
    assert.equal(await page.getByLabel("Latitude").inputValue(), "51.5");
    assert.equal(await page.getByLabel("Longitude").inputValue(), "-0.125");
    assert.equal(await page.getByLabel("Meeting time").inputValue(), "2025-06-01T10:30");
    assert.equal(await page.getByLabel("UTC offset").inputValue(), "+02:00");

    // The share link alone (no key) cannot open it, nor can a wrong key.
    for (const hash of [`#pin=${fx.pin}`, `#pin=${fx.pin}&draft=${"A".repeat(43)}`]) {
      const other = await fx.browser.newPage();
      await other.goto(`${fx.inst.url}/f/${fx.formId}${hash}`);
      await whenReady(other);
      assert.equal(await other.getByLabel("Name").inputValue(), "", hash);
      assert.match(
        await other.locator("#sp-draft-text").textContent() ?? "",
        /this address cannot open/,
      );
      assert.equal(await stored(other, fx), kept, "left as it was");
      assert.deepEqual(await seriousViolations(other), [], "axe, locked draft");
      await other.close();
    }

    // A submit wipes it: storage and the key in the address.
    const { id, link } = await submitForReceipt(page);
    assert.equal((await recordOf(fx, id)).values.name, SECRET);
    assert.deepEqual(await storageOf(page), EMPTY_STORAGE, "after the submit");
    assert.equal(parseFragment(new URL(page.url()).hash).draft, "");
    assert.equal(await page.locator("#sp-draft").isVisible(), false);

    // An amendment (the edit link) keeps no draft either.
    const edit = await fx.browser.newPage();
    await edit.goto(link);
    await whenReady(edit);
    assert.equal(await edit.locator("#sp-draft").isVisible(), false);
    await edit.getByLabel("Name").fill("Changed");
    await edit.waitForTimeout(500);
    assert.deepEqual(await storageOf(edit), EMPTY_STORAGE, "while amending");
    assert.deepEqual(errors, []);
  } finally {
    await fx.close();
  }
});

Deno.test('"Forget this draft" removes the draft and its key, and clears the form', async () => {
  const fx = await webFixture(FIELDS, "Drafts", undefined, { drafts: true });
  try {
    const page = await fx.browser.newPage();
    await page.goto(shareLink(fx.inst.url, fx.formId, fx.pin));
    await whenReady(page);
    await fillAndKeep(page, fx);
    const forget = page.getByRole("button", { name: "Forget this draft" });
    assert.equal(await forget.isVisible(), true);
    await forget.click();
    assert.match(await page.locator("#sp-draft-text").textContent() ?? "", /Draft forgotten/);
    assert.deepEqual(await storageOf(page), EMPTY_STORAGE);
    assert.equal(parseFragment(new URL(page.url()).hash).draft, "");
    assert.equal(await page.getByLabel("Name").inputValue(), "");
    await page.waitForTimeout(500);
    assert.deepEqual(await storageOf(page), EMPTY_STORAGE, "no save in flight brings it back");
    await page.reload();
    await whenReady(page);
    assert.equal(await page.getByLabel("Name").inputValue(), "");
    assert.match(await page.locator("#sp-draft-text").textContent() ?? "", /can keep a draft/);
  } finally {
    await fx.close();
  }
});

Deno.test("an owner turns drafts off with a new signed version: the page then keeps nothing", async () => {
  const fx = await webFixture(FIELDS, "Drafts", undefined, { drafts: true });
  try {
    const off = await call(`${fx.inst.url}/vault/forms/${fx.formId}`, {
      method: "PUT",
      token: fx.token,
      json: { fields: FIELDS, drafts: false, publish: true },
    });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.equal(off.body.drafts, false);
    const page = await fx.browser.newPage();
    await page.goto(shareLink(fx.inst.url, fx.formId, fx.pin));
    await whenReady(page);
    assert.equal(await page.locator("#sp-draft").isVisible(), false);
    await page.getByLabel("Name").fill(SECRET);
    await page.waitForTimeout(500);
    assert.deepEqual(await storageOf(page), EMPTY_STORAGE);
    assert.equal(parseFragment(new URL(page.url()).hash).draft, "");
  } finally {
    await fx.close();
  }
});
