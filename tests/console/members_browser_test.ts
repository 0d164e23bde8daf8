/**
 * Members and invitations in the console, in headless Chromium: an owner invites an email from
 * the database's "Members" page (the link shown once), the invited person opens the link in a
 * fresh browser, sets their name and password and lands on the database; the owner changes
 * their role, is refused demoting the last owner in plain words, and removes them, whose
 * session ends at once. axe-core finds no serious or critical violation on these pages.
 * Screenshots (desktop and phone) go to `$SEALPOST_SCREENSHOTS`.
 */
import assert from "node:assert/strict";
import type { BrowserContext } from "playwright-core";
import { Sessions } from "../../src/console/sessions.ts";
import { startInstance, type TestInstance } from "../_support/server.ts";
import { assertAccessible, launch, screenshot, watchProblems } from "./_browser.ts";
import { newDatabase } from "./_fixture.ts";

/** Signs `personId` in by a session cookie (whatever the sign-in page asks). */
async function signInAs(inst: TestInstance, context: BrowserContext, personId: string) {
  const ports = inst.server.vault!.store;
  const sessions = new Sessions(ports.sessions, (id) => ports.people.get(id), {
    idleSeconds: 3600,
    maxSeconds: 3600,
  });
  const person = (await ports.people.get(personId))!;
  const { cookie } = await sessions.create(person, {
    method: "password",
    secondFactor: false,
    address: "127.0.0.1",
    agent: "test",
  });
  await context.addCookies([{
    name: "sealpost_console",
    value: cookie,
    url: `${inst.url}/console`,
  }]);
}

Deno.test("console in Chromium: invite a member, accept the invitation, change the role, remove", async () => {
  const inst = await startInstance();
  const browser = await launch();
  try {
    const ports = inst.server.vault!.store;
    const ownerId = inst.credentials.userId;
    await ports.people.update(
      ownerId,
      (p) => ({ ...p, name: "Olivia Owner", email: "olivia@example.org" }),
    );
    const dbId = await newDatabase(inst);
    const { context } = browser;
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    const problems = watchProblems(page);

    await signInAs(inst, context, ownerId);
    await page.goto(`${inst.url}/console`);
    await page.getByRole("link", { name: "Databases" }).click();
    await page.getByRole("link", { name: "main" }).click();
    await page.getByRole("heading", { name: "Database “main”" }).waitFor();
    await assertAccessible(page);
    await page.getByRole("link", { name: "Members" }).click();
    await page.getByRole("heading", { name: "Members of “main”" }).waitFor();
    await assertAccessible(page);

    // Invite: the link is shown once.
    await page.getByLabel("Email").fill("ada@example.org");
    await page.getByLabel("Role", { exact: true }).selectOption("editor");
    await page.getByRole("button", { name: "Invite" }).click();
    await page.getByRole("heading", { name: "Invitation for ada@example.org (editor)" }).waitFor();
    const link = (await page.locator("#invitation-link").innerText()).trim();
    assert.match(
      link,
      new RegExp(`^${inst.server.baseUrl}/console/invitations#[A-Za-z0-9_-]{43}$`),
    );
    await assertAccessible(page);
    await screenshot(page, "console-members");
    await page.setViewportSize({ width: 360, height: 740 });
    await screenshot(page, "console-members-phone");
    await page.setViewportSize({ width: 1280, height: 900 });

    // The invited person, in a browser with no session: name, password, and in.
    await context.clearCookies();
    await page.goto(link);
    await page.getByRole("heading", { name: "Accept an invitation" }).waitFor();
    assert.equal(new URL(page.url()).hash, "", "the secret leaves the address bar");
    await page.getByLabel("Your name").fill("Ada Lovelace");
    await page.getByLabel("Password").fill("analytical engine notes");
    await assertAccessible(page);
    await screenshot(page, "console-invitation");
    await page.setViewportSize({ width: 360, height: 740 });
    await screenshot(page, "console-invitation-phone");
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole("button", { name: "Create my account and join" }).click();
    await page.getByRole("heading", { name: "Database “main”" }).waitFor();
    assert.match(await page.locator(".notice").innerText(), /you are now editor/);
    assert.match(await page.locator("main").innerText(), /Your role here: editor/);
    await assertAccessible(page);
    const ada = (await ports.people.byEmail("ada@example.org"))!;
    assert.equal(ada.name, "Ada Lovelace");
    // The link worked once.
    await page.goto(link);
    await page.getByRole("button", { name: "Accept the invitation" }).click();
    assert.match(await page.locator(".error").innerText(), /used already/);
    const adaCookies = await context.cookies();

    // The owner again: change Ada's role, try to demote the last owner, remove Ada.
    await context.clearCookies();
    await signInAs(inst, context, ownerId);
    await page.goto(`${inst.url}/console/databases/${dbId}/members`);
    await page.getByLabel("Role of Ada Lovelace", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Change role of Ada Lovelace" }).click();
    assert.match(await page.locator(".notice").innerText(), /Ada Lovelace is now viewer/);
    await page.getByLabel("Role of Olivia Owner", { exact: true }).selectOption("editor");
    await page.getByRole("button", { name: "Change role of Olivia Owner" }).click();
    assert.match(
      await page.locator(".error").innerText(),
      /A database keeps at least one owner: make another member an owner first/,
    );
    await assertAccessible(page);
    await page.getByRole("button", { name: "Remove Ada Lovelace" }).click();
    assert.match(await page.locator(".notice").innerText(), /Ada Lovelace was removed/);
    assert.equal(await page.getByRole("cell", { name: "ada@example.org" }).count(), 0);
    await assertAccessible(page);
    assert.equal(await ports.memberships.get(dbId, ada.id), null);

    // Ada's session ended with the removal: her browser is back at the sign-in page.
    await context.clearCookies();
    await context.addCookies(adaCookies.map((c) => ({ ...c })));
    const after = await page.goto(`${inst.url}/console/databases/${dbId}`);
    assert.equal(new URL(page.url()).pathname, "/console");
    assert.equal(after?.status(), 200);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    // The used link (404) and the refused demotion (409) are pages with an error status, which
    // the browser logs.
    assert.deepEqual(problems.filter((p) => !/status of 40[49]/.test(p)), []);
  } finally {
    await browser.close();
    await inst.close();
  }
});
