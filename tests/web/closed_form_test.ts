/**
 * A closed form in Chromium: the hosted page says so with the owner's message (light and dark,
 * desktop and phone; axe-core finds no serious or critical violation), a page opened before
 * the close shows the message when Submit is pressed, and a static export learns it from the
 * manifest (and, once the form is deleted, that it is not published). Screenshots go to `$SEALPOST_SCREENSHOTS` when it is set.
 */
import assert from "node:assert/strict";
import axe from "axe-core";
import type { Page } from "playwright-core";
import { shareLink } from "../../src/web/links.ts";
import { sealpost } from "../_support/cli.ts";
import { call } from "../_support/server.ts";
import { webFixture, whenReady } from "./_fixture.ts";

const FIELDS = [
  { id: "name", label: "Your name", kind: "text", required: true },
  { id: "guests", label: "Guests", kind: "number", integer: true, min: 0, max: 5 },
];
const MESSAGE = "Registration closed on 30 June: all 120 places are taken.\n" +
  "Thank you! Questions: write to party@example.com <we read everything>.";

async function serious(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const violations = await page.evaluate(
    "axe.run(document).then((r) => r.violations)",
  ) as { id: string; impact: string | null; nodes: { target: string[] }[] }[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id} at ${v.nodes.map((n) => n.target).join(", ")}`);
}

async function shot(page: Page, name: string) {
  const dir = Deno.env.get("SEALPOST_SCREENSHOTS");
  if (dir) await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}

function closeForm(
  fx: { inst: { url: string }; formId: string; token: string },
  message = MESSAGE,
) {
  return call(`${fx.inst.url}/vault/forms/${fx.formId}/close`, {
    method: "POST",
    token: fx.token,
    json: { message },
  });
}

Deno.test("closed form page: the owner's message, no form; light and dark, desktop and phone; axe clean", async () => {
  const fx = await webFixture(FIELDS, "Summer party RSVP");
  try {
    assert.equal((await closeForm(fx)).status, 200);
    for (const colorScheme of ["light", "dark"] as const) {
      for (
        const [size, viewport] of [["desktop", { width: 1280, height: 720 }], ["phone", {
          width: 360,
          height: 740,
        }]] as const
      ) {
        const page = await fx.browser.newPage();
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        page.on(
          "console",
          (m) => m.type() === "error" && !/410/.test(m.text()) && errors.push(m.text()),
        );
        await page.setViewportSize(viewport);
        await page.emulateMedia({ colorScheme });
        const response = await page.goto(shareLink(fx.inst.url, fx.formId, fx.pin));
        assert.equal(response?.status(), 410);
        assert.equal(await page.title(), "Closed: Summer party RSVP");
        await page.getByRole("heading", { name: "Summer party RSVP" }).waitFor();
        const notice = page.locator("#sp-notice");
        assert.match(
          await notice.innerText(),
          /^This form is closed\.\s+Registration closed on 30 June/,
        );
        // Plain text: the angle brackets are shown, the line break kept.
        assert.match(
          await notice.innerText(),
          /all 120 places are taken\.\nThank you!.*<we read everything>\./,
        );
        assert.equal(await page.locator("form, input, button, script").count(), 0);
        const width = await page.evaluate("document.documentElement.scrollWidth");
        assert.ok(Number(width) <= viewport.width, `${size}: ${width}px wide`);
        assert.deepEqual(await serious(page), [], `${size}, ${colorScheme}`);
        assert.deepEqual(errors, []);
        await shot(page, `form-closed-${size}-${colorScheme}`);
        await page.close();
      }
    }
  } finally {
    await fx.close();
  }
});

Deno.test("a page opened before the close shows the message at Submit; a static page learns it from the manifest", async () => {
  const fx = await webFixture(FIELDS, "Summer party RSVP");
  const dir = await Deno.makeTempDir({ prefix: "sealpost-closed-" });
  try {
    const page = await fx.browser.newPage();
    await page.goto(shareLink(fx.inst.url, fx.formId, fx.pin));
    await whenReady(page);
    assert.equal((await closeForm(fx, "Closed a minute ago, sorry.")).status, 200);
    await page.getByLabel("Your name").fill("Late Larry");
    await page.getByRole("button", { name: "Submit" }).click();
    await page.locator("#sp-notice.closed").waitFor({ timeout: 15_000 });
    assert.match(
      await page.locator("#sp-notice").innerText(),
      /This form is closed\.\s+Closed a minute ago, sorry\./,
    );
    assert.equal(await page.locator("#sp-form").isHidden(), true);
    assert.deepEqual(await serious(page), []);

    const out = `${dir}/form.html`;
    const run = await sealpost(["form", "page", fx.formId, "--out", out], {
      SEALPOST_URL: fx.inst.url,
      SEALPOST_TOKEN: fx.token,
    });
    assert.equal(run.code, 0, run.stderr);
    const fromFile = await fx.browser.newPage();
    await fromFile.goto(`file://${out}`);
    await fromFile.locator("#sp-notice.closed").waitFor({ timeout: 15_000 });
    assert.match(await fromFile.locator("#sp-notice").innerText(), /Closed a minute ago, sorry\./);
    assert.equal(await fromFile.locator("#sp-form").isHidden(), true);

    // Deleted: the static page says the form is not published, not that it was altered.
    const deleted = await call(`${fx.inst.url}/vault/forms/${fx.formId}`, {
      method: "DELETE",
      token: fx.token,
    });
    assert.equal(deleted.status, 204);
    await fromFile.reload();
    await fromFile.locator("#sp-notice.bad").waitFor({ timeout: 15_000 });
    assert.match(await fromFile.locator("#sp-notice").innerText(), /not published here/);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await fx.close();
  }
});
