/**
 * `sealpost form page FORM_ID --out form.html`: a static, self-contained page with the pin
 * baked in, opened from a file in Chromium, verifies the manifest and submits to the relay;
 * `sealpost form link` prints the share link and the two embed snippets, and the one-line
 * script embed puts the form on another site's page.
 */
import assert from "node:assert/strict";
import { sealpost } from "../_support/cli.ts";
import { recordOf, submitForReceipt, webFixture, whenReady } from "./_fixture.ts";

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "when", label: "When", kind: "date" },
];

Deno.test("the static export works from a file, with its pin baked in", async () => {
  const fx = await webFixture(FIELDS);
  const dir = await Deno.makeTempDir({ prefix: "sealpost-static-" });
  try {
    const out = `${dir}/form.html`;
    const cli = { SEALPOST_URL: fx.inst.url, SEALPOST_TOKEN: fx.token };
    const run = await sealpost(["form", "page", fx.formId, "--out", out], cli);
    assert.equal(run.code, 0, run.stderr);
    const html = (await Deno.readTextFile(out)).replaceAll("&#39;", "'");
    assert.match(html, new RegExp(`data-pin="${fx.pin}"`));
    assert.match(
      html,
      /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+';/,
    );
    assert.doesNotMatch(html, /unsafe-inline|unsafe-eval/);
    // Nothing is loaded from anywhere: no external script, style or image.
    assert.doesNotMatch(html, /<(script|img|link)[^>]+(src|href)="(https?:)?\/\//);

    const page = await fx.browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    await page.goto(`file://${out}`);
    await whenReady(page);
    await page.getByLabel("Name").fill("From a file");
    await page.getByLabel("When").fill("2025-01-31");
    const { id } = await submitForReceipt(page);
    const record = await recordOf(fx, id!);
    assert.deepEqual(record.values, { name: "From a file", when: "2025-01-31" });
    // The edit link points back at the file, with the secrets in its fragment.
    const link = await page.locator("#sp-edit-link").getAttribute("href");
    assert.ok(link!.startsWith(`file://${out}#pin=${fx.pin}&submission=${id}&token=`));
    assert.deepEqual(problems, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await fx.close();
  }
});

Deno.test("form link prints the share link and embed snippets; the script embed works", async () => {
  const fx = await webFixture(FIELDS);
  try {
    const cli = { SEALPOST_URL: fx.inst.url, SEALPOST_TOKEN: fx.token };
    const run = await sealpost(["form", "link", fx.formId], cli);
    assert.equal(run.code, 0, run.stderr);
    const share = `${fx.inst.url}/f/${fx.formId}#pin=${fx.pin}`;
    assert.match(run.stdout, new RegExp(`share link: ${share.replace(/[/.]/g, "\\$&")}`));
    const iframe = /<iframe src="[^"]+"[^>]*><\/iframe>/.exec(run.stdout)?.[0];
    const script = /<script src="[^"]+\/embed\.js"[^>]*><\/script>/.exec(run.stdout)?.[0];
    assert.ok(iframe && script, run.stdout);

    // Another site's page with the one-line embed: the form appears in a frame and submits.
    const site = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () =>
        new Response(`<!doctype html><title>Site</title><h1>My site</h1>${script}`, {
          headers: { "content-type": "text/html" },
        }),
    );
    try {
      const page = await fx.browser.newPage();
      await page.goto(`http://127.0.0.1:${site.addr.port}/`);
      const frame = page.frameLocator('iframe[title="Every kind"]');
      await whenReady(frame);
      await frame.getByLabel("Name").fill("Embedded");
      const { id } = await submitForReceipt(frame);
      assert.equal((await recordOf(fx, id!)).values.name, "Embedded");
      // The frame follows the form's height (the page posts it).
      const height = await page.locator("iframe").evaluate((f) => f.getBoundingClientRect().height);
      assert.notEqual(Math.round(height), 640);
    } finally {
      await site.shutdown();
    }
  } finally {
    await fx.close();
  }
});
