/**
 * Sign-in in real Chromium: a password and a TOTP code (computed here with otpauth), a passkey
 * registered on the Security page and used through a CDP virtual authenticator (as the second
 * step, and alone), a
 * recovery code used once, the set-password link; axe on the sign-in, second-step,
 * set-password and Security pages; screenshots (desktop and phone) for the docs.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { issueTicket } from "../../src/people/tickets.ts";
import { addVirtualAuthenticator } from "../_support/chromium.ts";
import { freePort } from "../_support/process.ts";
import { startInstance } from "../_support/server.ts";
import { assertAccessible, launch, screenshot, signInWith } from "./_browser.ts";
import { firstPerson, totpCode } from "./_client.ts";

const SIZES = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };

/** Axe on the page at both sizes, a screenshot of each as `<name>-<size>`. */
async function checkPage(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of Object.entries(SIZES)) {
    await page.setViewportSize(viewport);
    await assertAccessible(page);
    await screenshot(page, `${name}-${size}`);
  }
  await page.setViewportSize(SIZES.desktop);
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await page.getByLabel("Password").waitFor();
}

Deno.test("Chromium: password and TOTP, a passkey, a recovery code once, set-password", async () => {
  const port = freePort();
  const base = `http://localhost:${port}`;
  const inst = await startInstance({ SEALPOST_BASE_URL: base }, undefined, port);
  const browser = await launch();
  try {
    const login = await firstPerson(inst);
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(`pageerror: ${e}`));
    // A refused code is answered 401, which Chromium logs; anything else is a problem.
    page.on("console", (m) => {
      if (m.type() === "error" && !/status of 401/.test(m.text())) {
        problems.push(`console: ${m.text()}`);
      }
    });

    // The sign-in page; a password signs in (no second factor yet).
    await page.goto(`${base}/console`);
    await checkPage(page, "console-sign-in");
    await signInWith(page, login);
    await page.getByRole("heading", { name: "Forms" }).waitFor();

    // Set up the authenticator app: the key shown once, confirmed with a code.
    await page.getByRole("link", { name: "Security" }).click();
    await page.getByRole("heading", { name: "Security", exact: true }).waitFor();
    await page.getByRole("link", { name: "Set up an authenticator app" }).click();
    await assertAccessible(page);
    const secret = (await page.locator("code.secret").textContent())!.trim();
    await page.getByLabel("The six-digit code the app shows now").fill(totpCode(secret));
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.getByRole("heading", { name: "Your recovery codes" }).waitFor();
    await assertAccessible(page);
    const codes = (await page.locator("ol.secret code").allTextContents()).map((c) => c.trim());
    assert.equal(codes.length, 10);
    await page.getByRole("link", { name: "I saved them" }).click();

    // A passkey, through a virtual authenticator.
    await addVirtualAuthenticator(browser.context, page);
    await page.getByLabel("Name of the new passkey").fill("Test laptop");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.getByText("Passkey added.").first().waitFor();
    await page.getByRole("cell", { name: "Test laptop", exact: true }).waitFor();
    await page.getByText("10 of 10 recovery codes left").waitFor();
    await checkPage(page, "console-security");
    await page.evaluate(`document.getElementById("passkeys-h").scrollIntoView()`);
    await screenshot(page, "console-security-passkeys-desktop");
    await signOut(page);

    // Password, then the second step: a TOTP code (the next step: the set-up code is used).
    await signInWith(page, login);
    await page.getByLabel("Code from your authenticator app").waitFor();
    await checkPage(page, "console-second-step");
    await page.getByLabel("Code from your authenticator app").fill(
      totpCode(secret, Date.now() + 30_000),
    );
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("heading", { name: "Forms" }).waitFor();
    await signOut(page);

    // Password, then the passkey as the second step.
    await signInWith(page, login);
    await page.getByRole("button", { name: "Use a passkey" }).click();
    await page.getByRole("heading", { name: "Forms" }).waitFor();
    await signOut(page);

    // The passkey alone signs in.
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.getByRole("heading", { name: "Forms" }).waitFor();
    await signOut(page);

    // A recovery code signs in once.
    for (const expected of ["Forms", "refused"]) {
      await signInWith(page, login);
      await page.getByRole("link", { name: "Use a recovery code" }).click();
      await page.getByLabel("Recovery code").fill(codes[0]);
      await page.getByRole("button", { name: "Sign in" }).click();
      if (expected === "Forms") {
        await page.getByRole("heading", { name: "Forms" }).waitFor();
        await signOut(page);
      } else {
        await page.getByText("That code is not right").waitFor();
      }
    }

    // A set-password link: the secret after "#" never leaves the browser but in the form.
    const ticket = await issueTicket(
      inst.server.vault!.store.tickets,
      "set_password",
      inst.credentials.userId,
      {},
      3600_000,
    );
    await page.goto(`${base}/console/set-password#${ticket}`);
    await page.getByLabel("New password", { exact: true }).waitFor();
    assert.equal(new URL(page.url()).hash, "", "the secret is out of the address bar");
    await checkPage(page, "console-set-password");
    const password = "a whole new password here";
    await page.getByLabel("New password", { exact: true }).fill(password);
    await page.getByLabel("New password again").fill(password);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByText("Your password is set").first().waitFor();
    await assertAccessible(page);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await inst.close();
  }
});
