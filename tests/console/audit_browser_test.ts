/**
 * The console's Audit page in headless Chromium: the log in plain words (who by name and
 * email, or who acts without signing in), whether the chain verifies, filters by person and
 * action, paging; axe-core finds no serious or critical violation; the page fits a phone.
 * Only instance admins see its link. Screenshots go to `$SEALPOST_SCREENSHOTS`.
 */
import assert from "node:assert/strict";
import { addPerson } from "../_support/people.ts";
import { call, startInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";
import { assertAccessible, launch, screenshot, signInWith } from "./_browser.ts";
import { ConsoleClient, firstPerson, withPassword } from "./_client.ts";

Deno.test("console in Chromium: the Audit page, its filters and pages", async () => {
  const inst = await startInstance();
  const browser = await launch();
  try {
    const vault = inst.server.vault!;
    const admin = inst.server.firstPerson!;
    await vault.store.people.update(admin.personId, (p) => ({ ...p, name: "Ada Lovelace" }));
    // Older activity: more than a page of it.
    for (let n = 0; n < 55; n++) {
      await vault.audit.record({
        action: "record_viewed",
        personId: admin.personId,
        target: { kind: "record", id: `old/r${n}` },
      });
    }
    // Then a database, a form and a record by Ada; Grace, a viewer, reads the record; a
    // failed sign-in; a backup made on the server.
    const { db, form } = await vaultForm(inst, "Tips", [{ id: "tip", label: "Tip", kind: "text" }]);
    const created = await call(`${inst.url}/vault/forms/${form.formId}/records`, {
      method: "POST",
      token: inst.credentials.ownerToken,
      json: { values: { tip: "The printer on floor 3" } },
    });
    const grace = await addPerson(inst, {
      name: "Grace Hopper",
      databaseId: db.id,
      role: "viewer",
    });
    const recordPath = `/vault/forms/${form.formId}/records/${created.body._recordId}`;
    assert.equal((await call(`${inst.url}${recordPath}`, { token: grace.token })).status, 200);
    await vault.audit.record({ action: "sign_in_failed", personId: null, outcome: "failure" });
    await vault.audit.record({
      action: "backup_created",
      personId: null,
      detail: { files: 12, via: "cli" },
    });
    await vault.audit.idle();

    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(`pageerror: ${e}`));
    page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
    await page.goto(`${inst.url}/console`);
    await signInWith(page, await firstPerson(inst));
    await page.getByRole("link", { name: "Audit" }).click();
    await page.getByRole("heading", { name: "Audit" }).waitFor();
    assert.match(await page.getByRole("status").innerText(), /^The audit log verifies now: \d+/);
    const rows = page.locator("tbody tr");
    assert.equal(await rows.count(), 50);
    // Newest first: this sign-in, then what the test recorded.
    assert.match(await rows.nth(0).innerText(), /signed in \(method: password/);
    const first = await rows.nth(1).innerText();
    assert.match(first, /Someone at the server's command line\s+made a backup \(files: 12\)/);
    assert.match(await rows.nth(2).innerText(), /Someone not signed in\s+failed to sign in\s/);
    const graceRow = await rows.nth(3).innerText();
    assert.match(graceRow, /Grace Hopper \([0-9a-f]+@test\.invalid\), with an API token/);
    assert.match(graceRow, /viewed a record\s+main\s+record /);
    await assertAccessible(page);
    await screenshot(page, "console-audit");

    // Filters: Grace's reads only, then Ada's form changes.
    await page.getByLabel("Person").selectOption(grace.personId);
    await page.getByLabel("Action").selectOption({ label: "viewed a record" });
    await page.getByRole("button", { name: "Show" }).click();
    await page.waitForURL(/action=record_viewed/);
    assert.equal(await rows.count(), 1);
    assert.match(await rows.nth(0).innerText(), /Grace Hopper/);
    await page.getByLabel("Person").selectOption(admin.personId);
    await page.getByLabel("Action").selectOption({ label: "published a form" });
    await page.getByRole("button", { name: "Show" }).click();
    await page.waitForURL(/action=form_published/);
    assert.equal(await rows.count(), 1);
    assert.match(
      await rows.nth(0).innerText(),
      /Ada Lovelace .*published a form \(schema version: 1\)\s+main\s+form /,
    );
    await assertAccessible(page);

    // Pages: the older entries, then back to the newest.
    await page.goto(`${inst.url}/console/audit`);
    await page.getByRole("link", { name: "Older entries" }).click();
    await page.waitForURL(/before=\d+/);
    const older = await rows.count();
    assert.ok(older > 0 && older <= 50);
    assert.match(await rows.nth(0).innerText(), /Ada Lovelace/);
    await page.getByRole("link", { name: "Newest entries" }).click();
    await page.waitForURL(/\/console\/audit$/);
    assert.equal(await rows.count(), 50);

    // A phone: the page fits (the table scrolls inside itself).
    await page.setViewportSize({ width: 390, height: 844 });
    const width = Number(await page.evaluate("document.documentElement.scrollWidth"));
    assert.ok(width <= 390, `/console/audit is ${width}px wide on a 390px screen`);
    await assertAccessible(page);
    await page.evaluate("document.querySelector('table').scrollIntoView()");
    await screenshot(page, "console-audit-phone");
    assert.deepEqual(problems, []);

    // Grace is no instance admin: no link, and the page refuses her.
    const other = new ConsoleClient(inst.url);
    await other.signIn(await withPassword(inst.server.vault!.store.people, grace.personId));
    assert.ok(!(await other.page("/console")).includes('href="/console/audit"'));
    await other.page("/console/audit", 403);
  } finally {
    await browser.close();
    await inst.close();
  }
});
