/**
 * Headless Chromium for the console's pages (the shared launcher), an axe-core scan of a
 * page, and screenshots for the docs.
 */
import assert from "node:assert/strict";
import axe from "axe-core";
import type { BrowserContext, Page } from "playwright-core";
import { launchChromium } from "../_support/chromium.ts";
import type { Login } from "./_client.ts";

/** Chromium with a fresh profile in a temporary folder; `close` removes it. */
export async function launch(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-console-browser-" });
  const context = await launchChromium(`${dir}/profile`);
  return {
    context,
    close: async () => {
      await context.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/**
 * Collects what should not happen on `page`: a dialog (dismissed), a page error, a console
 * error. The returned list grows as they happen.
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("dialog", (d) => {
    problems.push(`dialog: ${d.message()}`);
    d.dismiss();
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e}`));
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  return problems;
}

/** Violations axe-core reports as serious or critical on the current page. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP does not apply to it.
  const result = await page.evaluate(`${axe.source}
    axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 3),
    })))`) as { id: string; impact: string; nodes: string[] }[];
  return result
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.join(", ")}`);
}

/** Scans the current page and asserts no serious or critical violation. */
export async function assertAccessible(page: Page): Promise<void> {
  const found = await seriousViolations(page);
  assert.deepEqual(found, [], `axe on ${page.url()}`);
}

/** Saves a screenshot to `$SEALPOST_SCREENSHOTS/<name>.png` when that variable is set. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = Deno.env.get("SEALPOST_SCREENSHOTS");
  if (dir) await page.screenshot({ path: `${dir}/${name}.png`, fullPage: false });
}

/** Fills the sign-in page's "Email" and "Password" and presses "Sign in". */
export async function signInWith(page: Page, login: Login): Promise<void> {
  await page.getByLabel("Email").fill(login.email);
  await page.getByLabel("Password").fill(login.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}
