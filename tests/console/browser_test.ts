/**
 * The owner console in headless Chromium: sign in; build a form with every kind; publish;
 * add a webhook to a failing loopback receiver; submit through the hosted form page opened
 * from the console's share link; the record shows its image inline and its hostile value as
 * text; the failure is flagged; fix the receiver; retry; delivered; sign out. Every page is
 * scanned with axe-core (no serious or critical violation), and no Content-Security-Policy
 * violation, dialog or page error happens.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { FIELD_KINDS } from "../../src/forms/fields.ts";
import { Buffer } from "node:buffer";
import { call, startInstance } from "../_support/server.ts";
import { assertAccessible, launch, screenshot, signInWith, watchProblems } from "./_browser.ts";
import { firstPerson } from "./_client.ts";
import { newDatabase, PNG, startReceiver, waitFor } from "./_fixture.ts";

const XSS = "<img src=x onerror=alert(1)>";

/** Reloads until `text` shows on the page. */
async function reloadUntil(page: Page, text: string): Promise<void> {
  await waitFor(async () => {
    if ((await page.content()).includes(text)) return true;
    await page.reload();
    return null;
  }, `"${text}" on ${page.url()}`);
}

Deno.test("console end to end in Chromium, with axe scans of every page", async () => {
  const inst = await startInstance({ SEALPOST_WEBHOOKS_RETRY_SCHEDULE_SECONDS: "0" });
  const receiver = startReceiver();
  const browser = await launch();
  const token = inst.credentials.ownerToken;
  try {
    await newDatabase(inst); // the builder's "Database" choice
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    const problems = watchProblems(page);

    // Sign in.
    await page.goto(`${inst.url}/console`);
    await assertAccessible(page);
    await screenshot(page, "console-sign-in");
    await signInWith(page, await firstPerson(inst));
    await page.getByRole("heading", { name: "Forms" }).waitFor();
    await assertAccessible(page);

    // Build a form with every kind, and publish it.
    await page.getByRole("link", { name: "New form" }).click();
    // The two switches: files encrypted, no drafts, for a new form.
    assert.equal(await page.getByLabel("Encrypt uploaded files").isChecked(), true);
    assert.equal(
      await page.getByLabel("Let senders keep a draft on this device").isChecked(),
      false,
    );
    await screenshot(page, "console-builder-switches");
    await page.getByLabel("Title").fill("Everything");
    for (const kind of FIELD_KINDS) {
      await page.getByLabel("Kind of the new field").selectOption(kind);
      await page.getByRole("button", { name: "Add field" }).click();
      await page.waitForLoadState();
    }
    await page.getByLabel("Form id (optional)").fill("everything");
    // The preview: the form page's own controls and style sheet, in a sandboxed frame.
    const preview = page.frameLocator("iframe.form-preview");
    await preview.locator("#pv-field2").waitFor();
    assert.equal(await preview.locator("#pv-field15").getAttribute("type"), "file");
    const radius = await preview.locator(".card").evaluate((el) =>
      // deno-lint-ignore no-explicit-any
      (globalThis as any).getComputedStyle(el).borderTopLeftRadius
    );
    assert.equal(radius, "8px", "the form page's style sheet applies");
    // Live: typing a label updates the preview, no button pressed.
    await page.locator("#f-1-label").fill("Favourite <colour>");
    await preview.getByLabel("Favourite <colour>").waitFor({ timeout: 10_000 });
    await assertAccessible(page);
    await screenshot(page, "console-builder");
    await page.getByRole("button", { name: "Publish new version" }).click();
    await page.waitForURL(/\/console\/forms\/everything\?/);
    await assertAccessible(page);
    const form = await call(`${inst.url}/vault/forms/everything`, { token });
    assert.deepEqual(form.body.fields.map((f: { kind: string }) => f.kind), [
      "text",
      ...FIELD_KINDS,
    ]);
    assert.equal(form.body.files, "encrypted", "published as the switch said");
    assert.equal(form.body.drafts, false);

    // A webhook to a receiver that refuses (400).
    await page.getByRole("link", { name: "Webhooks" }).click();
    await assertAccessible(page);
    await page.getByLabel("URL", { exact: true }).fill(receiver.url);
    await page.getByLabel("Name", { exact: true }).fill("Receiver");
    // The body preview follows the editor as it changes.
    await page.getByLabel("Payload mode").selectOption("json_template");
    await page.getByLabel("Template (template modes)").fill('{"who": {{field2}}}');
    await page.locator("pre.body-preview", { hasText: '{"who": "Sample text"}' }).waitFor({
      timeout: 10_000,
    });
    await page.getByLabel("Payload mode").selectOption("default");
    await page.getByLabel("Template (template modes)").fill("");
    await page.locator("pre.body-preview", { hasText: '"field2":"Sample text"' }).waitFor({
      timeout: 10_000,
    });
    await page.getByRole("button", { name: "Save webhook" }).click();
    await page.waitForURL(/\/console\/webhooks\/[0-9a-f]{24}/);
    const webhookUrl = page.url().split("?")[0];

    // Submit through the hosted form page, opened from the console's share link.
    await page.goto(`${inst.url}/console/forms/everything/share`);
    await assertAccessible(page);
    const link = await page.locator('a[href*="/f/everything#pin="]').getAttribute("href");
    const key = await call(`${inst.url}/vault/manifest-key`, { token });
    assert.equal(link, `${inst.url}/f/everything#pin=${key.body.fingerprint}`);
    const formPage = await browser.context.newPage();
    formPage.on("pageerror", (e) => problems.push(`form page: ${e}`));
    await formPage.goto(link!);
    await formPage.locator("#sp-submit:not([disabled])").waitFor({ timeout: 15_000 });
    await formPage.getByLabel("Your name", { exact: true }).fill(XSS);
    await formPage.getByLabel("Field 14", { exact: true }).setInputFiles({
      name: "dot.png",
      mimeType: "image/png",
      buffer: Buffer.from(PNG),
    });
    await formPage.getByLabel("Field 15", { exact: true }).setInputFiles({
      name: "page.html",
      mimeType: "text/html",
      buffer: Buffer.from("<script>alert(2)</script>"),
    });
    await formPage.getByRole("button", { name: "Submit" }).click();
    await formPage.locator("#sp-receipt").waitFor({ state: "visible", timeout: 30_000 });
    await formPage.close();

    // The record: the image inline, the hostile value as text, the HTML file a download.
    await page.goto(`${inst.url}/console/forms/everything`);
    await page.getByRole("link", { name: "Records", exact: true }).first().click();
    await reloadUntil(page, "1 record.");
    assert.equal(await page.getByRole("cell", { name: XSS, exact: true }).count(), 1);
    const img = page.locator("img.inline");
    await img.waitFor();
    assert.equal(
      await img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth),
      1,
    );
    assert.equal(await page.locator("img[src=x]").count(), 0);
    assert.equal(await page.getByRole("link", { name: "Download page.html" }).count(), 1);
    await assertAccessible(page);
    await screenshot(page, "console-records");
    await page.getByRole("link", { name: "Open" }).click();
    await page.getByRole("heading", { name: "Versions" }).waitFor();
    await assertAccessible(page);

    // The failure is flagged on the front page; fix the receiver; retry; delivered.
    await page.goto(`${inst.url}/console`);
    await reloadUntil(page, "Webhook failures need your attention");
    await assertAccessible(page);
    await screenshot(page, "console-flagged");
    receiver.state.status = 200;
    await page.getByRole("button", { name: "Retry all failed" }).click();
    await page.waitForURL(/\/console\/webhooks\//);
    await reloadUntil(page, "<strong>delivered</strong>");
    await assertAccessible(page);
    await screenshot(page, "console-webhook");
    await page.goto(`${inst.url}/console`);
    assert.equal(await page.getByText("Webhook failures need your attention").count(), 0);

    // Every other page passes axe too.
    await page.goto(webhookUrl);
    await page.locator('a[href^="/console/deliveries/"]').first().click();
    await page.getByRole("heading", { name: "Attempts" }).waitFor();
    await assertAccessible(page);
    for (const path of ["builder", "versions", "share", "webhooks"]) {
      await page.goto(`${inst.url}/console/forms/everything/${path}`);
      await assertAccessible(page);
    }
    await page.goto(`${inst.url}/console/forms/everything/share`);
    const qrWidth = await page.locator("img.qr").evaluate((el) =>
      (el as unknown as { naturalWidth: number }).naturalWidth
    );
    assert.ok(qrWidth > 0, "the QR code image loads");
    await screenshot(page, "console-share");
    await page.goto(`${inst.url}/console/quarantine`);
    await assertAccessible(page);

    // Every page fits a phone-sized screen (wide tables scroll inside themselves).
    await page.setViewportSize({ width: 390, height: 844 });
    for (
      const path of [
        "",
        "/forms/everything/records",
        "/forms/everything/builder",
        "/forms/everything/versions",
        "/forms/everything/share",
        "/forms/everything/webhooks",
        "/quarantine",
      ]
    ) {
      await page.goto(`${inst.url}/console${path}`);
      const width = Number(await page.evaluate("document.documentElement.scrollWidth"));
      assert.ok(width <= 390, `/console${path} is ${width}px wide on a 390px screen`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    // Sign out.
    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.getByLabel("Password").waitFor();
    const gone = await page.goto(`${inst.url}/console/forms/everything/records`);
    assert.equal(new URL(gone!.url()).pathname, "/console");
    assert.deepEqual(problems, []);
    assert.ok(receiver.state.received.length >= 2, "failed once, then delivered");
  } finally {
    await browser.close();
    await receiver.close();
    await inst.close();
  }
});
