/**
 * Accessibility of the form page: axe-core finds no serious or critical violation on the form
 * (light and dark), its error state and its receipt; the page fits a phone-sized screen; a
 * keyboard alone fills and submits it.
 */
import assert from "node:assert/strict";
import axe from "axe-core";
import type { Page } from "playwright-core";
import { shareLink } from "../../src/web/links.ts";
import { sealpost } from "../_support/cli.ts";
import { recordOf, webFixture, whenReady } from "./_fixture.ts";

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe-core in the page; the serious and critical violations. */
async function scan(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const violations = await page.evaluate(
    "axe.run(document).then((r) => r.violations)",
  ) as Violation[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target).join(", ")}`);
}

Deno.test("axe-core: no serious or critical violation on the form, its errors and its receipt", async () => {
  const fx = await webFixture();
  try {
    for (const colorScheme of ["light", "dark"] as const) {
      const page = await fx.browser.newPage();
      await page.emulateMedia({ colorScheme });
      await page.goto(shareLink(fx.inst.url, fx.formId, fx.pin));
      await whenReady(page);
      assert.deepEqual(await scan(page), [], `form, ${colorScheme}`);
      const background = await page.evaluate("getComputedStyle(document.body).backgroundColor");
      const dark = /rgb\((\d+)/.exec(String(background))![1];
      assert.equal(Number(dark) < 60, colorScheme === "dark", `${colorScheme}: ${background}`);

      await page.getByLabel("Email").fill("nope");
      await page.getByRole("button", { name: "Submit" }).click();
      await page.locator("#sp-email-err").waitFor({ state: "visible" });
      assert.deepEqual(await scan(page), [], `error state, ${colorScheme}`);

      await page.getByLabel("Name").fill("Ada");
      await page.getByLabel("Email").fill("ada@example.com");
      await page.getByRole("button", { name: "Submit" }).click();
      await page.locator("#sp-receipt").waitFor({ state: "visible", timeout: 15_000 });
      assert.deepEqual(await scan(page), [], `receipt, ${colorScheme}`);
      await page.close();
    }
  } finally {
    await fx.close();
  }
});

Deno.test("the page fits a phone-sized screen", async () => {
  const fx = await webFixture();
  try {
    const page = await fx.browser.newPage();
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(shareLink(fx.inst.url, fx.formId, fx.pin));
    await whenReady(page);
    assert.equal(
      await page.locator('meta[name="viewport"]').getAttribute("content"),
      "width=device-width, initial-scale=1",
    );
    const width = await page.evaluate("document.documentElement.scrollWidth");
    assert.ok(Number(width) <= 360, `page is ${width}px wide on a 360px screen`);
    const selector = "input, select, textarea, button, label, fieldset";
    const wide = await page.evaluate(
      `[...document.querySelectorAll("${selector}")]` +
        ".filter((e) => e.getBoundingClientRect().right > 360).map((e) => e.id || e.tagName)",
    );
    assert.deepEqual(wide, []);
  } finally {
    await fx.close();
  }
});

Deno.test("a keyboard alone fills and submits the form", async () => {
  const fields = [
    { id: "name", label: "Name", kind: "text", required: true },
    { id: "size", label: "Size", kind: "choice", options: ["S", "M", "L"] },
    { id: "agree", label: "I agree", kind: "boolean" },
  ];
  const fx = await webFixture(fields);
  const file = await Deno.makeTempFile({ suffix: ".json" });
  try {
    await Deno.writeTextFile(file, JSON.stringify(fields));
    // The form's own label for its submit button, set with the CLI.
    const run = await sealpost(
      ["form", "update", fx.formId, "--fields", file, "--submit-label", "Send it", "--publish"],
      { SEALPOST_URL: fx.inst.url, SEALPOST_TOKEN: fx.token },
    );
    assert.equal(run.code, 0, run.stderr);
    const page = await fx.browser.newPage();
    await page.goto(shareLink(fx.inst.url, fx.formId, fx.pin));
    await whenReady(page);
    assert.equal(await page.locator("#sp-submit").textContent(), "Send it");
    const focused = () => page.evaluate("document.activeElement.id");
    await page.keyboard.press("Tab");
    assert.equal(await focused(), "sp-name");
    await page.keyboard.type("Keys Only");
    await page.keyboard.press("Tab");
    assert.equal(await focused(), "sp-size-0");
    await page.keyboard.press("ArrowDown");
    assert.equal(await focused(), "sp-size-1");
    await page.keyboard.press("Tab");
    assert.equal(await focused(), "sp-agree");
    await page.keyboard.press("Space");
    await page.keyboard.press("Tab");
    assert.equal(await focused(), "sp-submit");
    await page.keyboard.press("Enter");
    await page.locator("#sp-receipt").waitFor({ state: "visible", timeout: 15_000 });
    assert.equal(await focused(), "sp-receipt-title", "the receipt takes the focus");
    const id = await page.locator("#sp-receipt-id").textContent();
    const record = await recordOf(fx, id!);
    assert.deepEqual(record.values, { name: "Keys Only", size: "M", agree: true });
  } finally {
    await Deno.remove(file);
    await fx.close();
  }
});
