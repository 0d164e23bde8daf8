/**
 * A form's status in the console, in headless Chromium: "Close form" with a message,
 * "Reopen form", and "Delete form" from the front page (the demo form) through its
 * confirmation; axe-core finds no serious or critical violation on any of these pages, and no
 * dialog, page error or console error happens. Screenshots go to `$SEALPOST_SCREENSHOTS`.
 */
import { ownerGate } from "../_support/people.ts";
import assert from "node:assert/strict";
import { startInstance } from "../_support/server.ts";
import { assertAccessible, launch, screenshot, signInWith, watchProblems } from "./_browser.ts";
import { firstPerson } from "./_client.ts";

Deno.test("console in Chromium: close, reopen and delete the demo form", async () => {
  const inst = await startInstance();
  const browser = await launch();
  try {
    const demo = await inst.server.vault!.bootstrap(
      await ownerGate(inst.server.vault!, inst.credentials.userId),
    );
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    const problems = watchProblems(page);

    await page.goto(`${inst.url}/console`);
    await signInWith(page, await firstPerson(inst));
    await page.getByRole("heading", { name: "The demo form" }).waitFor();
    await assertAccessible(page);
    await screenshot(page, "console-front-demo");

    // Close with a message from the form's overview.
    await page.getByRole("link", { name: "Sealpost demo: feedback" }).click();
    await page.getByRole("heading", { name: "Status: Open" }).waitFor();
    await page.getByLabel("Message to senders while closed (optional)")
      .fill("Thanks for trying Sealpost!\nThis demo is closed.");
    await assertAccessible(page);
    await page.getByRole("button", { name: "Close form" }).click();
    await page.getByRole("heading", { name: "Status: Closed" }).waitFor();
    assert.match(await page.locator(".closed-message").innerText(), /This demo is closed\./);
    await assertAccessible(page);
    await screenshot(page, "console-form-closed");
    await page.setViewportSize({ width: 360, height: 740 });
    await screenshot(page, "console-form-closed-phone");
    await page.setViewportSize({ width: 1280, height: 900 });
    const sender = await browser.context.newPage();
    const closedPage = await sender.goto(`${inst.url}/f/${demo.formId}`);
    assert.equal(closedPage?.status(), 410);
    await sender.close();

    await page.getByRole("button", { name: "Reopen form" }).click();
    await page.getByRole("heading", { name: "Status: Open" }).waitFor();
    assert.match(await page.locator(".notice").innerText(), /Form reopened/);

    // Delete from the front page: a confirmation first, then the form is gone from the list.
    await page.getByRole("link", { name: "Forms" }).click();
    await page.getByRole("button", { name: "Delete form" }).click();
    await page.getByRole("heading", { name: "Delete form “Sealpost demo: feedback”?" })
      .waitFor();
    assert.match(await page.locator("main").innerText(), /It has no records\./);
    await assertAccessible(page);
    await screenshot(page, "console-delete-form");
    await page.getByRole("button", { name: "Delete form" }).click();
    await page.getByRole("heading", { name: "Forms" }).waitFor();
    assert.match(await page.locator(".notice").innerText(), /deleted\. Its records are kept/);
    assert.equal(await page.getByRole("link", { name: "Sealpost demo: feedback" }).count(), 0);
    await assertAccessible(page);
    const manifest = await fetch(`${inst.url}/forms/${demo.formId}/manifest`);
    assert.equal(manifest.status, 404);
    await manifest.body?.cancel();
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await inst.close();
  }
});
