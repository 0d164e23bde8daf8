/**
 * The console's "API tokens" page in headless Chromium: make a token (name, what it may do,
 * expiry), see it once (gone after a reload), use it, revoke it after the confirmation (it is
 * refused at once); axe-core finds no serious or critical violation on these pages, and no
 * dialog, page error or console error happens. Screenshots (desktop and phone) go to
 * `$SEALPOST_SCREENSHOTS`. The session is made through the sessions port, whatever the
 * sign-in page asks.
 */
import assert from "node:assert/strict";
import { Sessions } from "../../src/console/index.ts";
import { SESSION_COOKIE } from "../../src/console/context.ts";
import { call, startInstance } from "../_support/server.ts";
import { assertAccessible, launch, screenshot, watchProblems } from "./_browser.ts";

Deno.test("console in Chromium: API tokens made, shown once, revoked", async () => {
  const inst = await startInstance();
  const browser = await launch();
  try {
    const store = inst.server.vault!.store;
    const sessions = new Sessions(store.sessions, (id) => store.people.get(id), {
      idleSeconds: 1800,
      maxSeconds: 43200,
    });
    const person = (await store.people.get(inst.credentials.userId))!;
    const { cookie } = await sessions.create(person, {
      method: "password",
      secondFactor: false,
      address: "127.0.0.1",
      agent: "test",
    });
    await browser.context.addCookies([
      { name: SESSION_COOKIE, value: cookie, url: `${inst.url}/console` },
    ]);
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    const problems = watchProblems(page);

    await page.goto(`${inst.url}/console`);
    await page.getByRole("link", { name: "API tokens" }).click();
    await page.getByRole("heading", { name: "API tokens", level: 1 }).waitFor();
    // init's owner token is listed as the first person's token.
    assert.match(await page.locator("table").innerText(), /owner token/);
    await assertAccessible(page);

    await page.getByLabel("Name").fill("Export script");
    await page.getByRole("checkbox", { name: /forms:write/ }).check();
    await page.getByLabel("Expires").selectOption({ label: "In 30 days" });
    await assertAccessible(page);
    await screenshot(page, "console-tokens-new");
    await page.getByRole("button", { name: "Create token" }).click();
    await page.getByRole("heading", { name: "Your new token “Export script”" }).waitFor();
    const token = (await page.locator("#new-token-value").innerText()).trim();
    assert.match(token, /^spt_[0-9a-f]{24}_[A-Za-z0-9_-]{43}$/);
    assert.match(await page.locator("main").innerText(), /shown this once/);
    await assertAccessible(page);
    await screenshot(page, "console-tokens-created");
    await page.setViewportSize({ width: 360, height: 740 });
    await screenshot(page, "console-tokens-created-phone");
    await page.setViewportSize({ width: 1280, height: 900 });

    // The token works, with the scopes it was given.
    assert.equal((await call(`${inst.url}/vault/forms`, { token })).status, 200);
    // Shown once: the list has it, with its last use, and never its secret.
    await page.goto(`${inst.url}/console/tokens`);
    const listed = await page.locator("main").innerText();
    assert.doesNotMatch(listed, /Your new token/);
    assert.ok(
      !listed.includes(token.split("_").slice(2).join("_")),
      "the secret is not shown again",
    );
    const row = page.getByRole("row", { name: /Export script/ });
    assert.match(await row.innerText(), /records:read\s*forms:write/);
    assert.doesNotMatch(await row.innerText(), /Never used/);
    assert.ok(!(await page.content()).includes(token.split("_").slice(2).join("_")));

    // Revoke, after the confirmation.
    await row.getByRole("button", { name: "Revoke “Export script”" }).click();
    await page.getByRole("heading", { name: "Revoke token “Export script”?" }).waitFor();
    await assertAccessible(page);
    await screenshot(page, "console-tokens-revoke");
    await page.getByRole("button", { name: "Revoke token" }).click();
    await page.getByRole("heading", { name: "API tokens", level: 1 }).waitFor();
    assert.match(await page.locator(".notice").innerText(), /Token revoked/);
    assert.equal(await page.getByRole("row", { name: /Export script/ }).count(), 0);
    assert.equal((await call(`${inst.url}/vault/forms`, { token })).status, 401);

    assert.deepEqual(problems, []);

    // A refused token (no scope) shows the form again with the reason (a 400).
    await page.getByLabel("Name").fill("Nothing");
    await page.getByRole("checkbox", { name: /records:read/ }).uncheck();
    await page.getByRole("button", { name: "Create token" }).click();
    await page.getByRole("alert").waitFor();
    assert.match(await page.getByRole("alert").innerText(), /at least one scope/);
    assert.equal(await page.getByLabel("Name").inputValue(), "Nothing");
    await assertAccessible(page);
  } finally {
    await browser.close();
    await inst.close();
  }
});
