/**
 * The form page as people see it, in Chromium: the demo form (an error shown) and its trust
 * line on a desktop and a phone, light and dark, and a form with drafts allowed; axe finds no
 * serious violation in any of them. With `SEALPOST_SCREENSHOTS=DIR` the pictures are saved
 * there (docs/form-*.png, docs/images/trust-line-*.png and form-draft-*.png come from it).
 */
import assert from "node:assert/strict";
import axe from "axe-core";
import type { Page } from "playwright-core";
import { DEMO_FIELDS } from "../../src/vault/index.ts";
import { shareLink } from "../../src/web/links.ts";
import { type WebFixture, webFixture, whenReady } from "./_fixture.ts";

const OWNER = "Grace Hopper";
const VIEWS = [
  { name: "desktop", viewport: { width: 1000, height: 900 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
] as const;

async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const found = await page.evaluate("axe.run(document).then((r) => r.violations)") as {
    id: string;
    impact: string | null;
  }[];
  return found.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id);
}

/**
 * Saves the whole page, or with `upTo` its top down to that element, as DIR/name.png when
 * SEALPOST_SCREENSHOTS is set.
 */
async function save(page: Page, name: string, upTo?: string): Promise<void> {
  const dir = Deno.env.get("SEALPOST_SCREENSHOTS");
  if (!dir) return;
  const path = `${dir}/${name}.png`;
  if (!upTo) return void await page.screenshot({ path, fullPage: true });
  const box = (await page.locator(upTo).boundingBox())!;
  const width = page.viewportSize()!.width;
  await page.screenshot({ path, clip: { x: 0, y: 0, width, height: box.y + box.height + 16 } });
}

async function open(fx: WebFixture, view: typeof VIEWS[number], scheme: "light" | "dark") {
  const page = await fx.browser.newPage();
  await page.setViewportSize(view.viewport);
  await page.emulateMedia({ colorScheme: scheme });
  await page.goto(shareLink(fx.inst.url, fx.formId, fx.pin));
  await whenReady(page);
  return page;
}

Deno.test("screens: the demo form and its trust line, desktop and phone, light and dark", async () => {
  const fx = await webFixture(DEMO_FIELDS, "Sealpost demo: feedback", undefined, {}, OWNER);
  try {
    for (const view of VIEWS) {
      for (const scheme of ["light", "dark"] as const) {
        const page = await open(fx, view, scheme);
        const trust = await page.locator("#sp-trust").textContent() ?? "";
        assert.match(trust, new RegExp(`^Only ${OWNER} can read your answers`));
        assert.match(trust, /Files you attach are encrypted the same way/);
        assert.deepEqual(await seriousViolations(page), [], `${view.name} ${scheme}`);
        await save(page, `trust-line-${view.name}-${scheme}`, "#sp-trust");
        await page.getByLabel("Your name").fill("Ada Lovelace");
        await page.getByLabel("Email").fill("ada@example");
        await page.getByRole("button", { name: "Submit" }).click();
        await page.locator("#sp-email-err").waitFor({ state: "visible" });
        assert.deepEqual(await seriousViolations(page), [], `${view.name} ${scheme}, error`);
        await save(page, `form-${view.name}-${scheme}`);
        await page.close();
      }
    }
  } finally {
    await fx.close();
  }
});

Deno.test("screens: a form with drafts allowed, a draft kept", async () => {
  const fields = DEMO_FIELDS.filter((f) => f.kind !== "image");
  const fx = await webFixture(fields, "Tell us more", undefined, { drafts: true }, OWNER);
  try {
    for (const view of VIEWS) {
      for (const scheme of ["light", "dark"] as const) {
        const page = await open(fx, view, scheme);
        await page.getByLabel("Your name").fill("Ada Lovelace");
        await page.locator("#sp-draft-text", { hasText: "Draft kept on this device" })
          .waitFor();
        assert.deepEqual(await seriousViolations(page), [], `${view.name} ${scheme}`);
        await save(page, `form-draft-${view.name}-${scheme}`);
        await page.getByRole("button", { name: "Forget this draft" }).click();
        await page.close();
      }
    }
  } finally {
    await fx.close();
  }
});
