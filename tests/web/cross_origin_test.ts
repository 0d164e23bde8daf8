/**
 * A page on another loopback origin than the relay (docs/web/own_page.html, as
 * docs/sdk.md shows it) submits through the SDK: manifest, upload slot, upload PUT and
 * submission all cross origins under CORS, and the record reaches the vault with the file.
 * A form restricted to other origins is refused by the browser itself.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { recordFileBytes, recordOf, submitForReceipt, webFixture, whenReady } from "./_fixture.ts";
import { call } from "../_support/server.ts";

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "message", label: "Message", kind: "richText" },
  { id: "photo", label: "Photo", kind: "image" },
];

async function sdkBundle(): Promise<string> {
  const out = await Deno.makeTempFile({ suffix: ".js" });
  try {
    const result = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--platform=browser",
        "-o",
        out,
        new URL("../../src/sdk/mod.ts", import.meta.url).pathname,
      ],
      stderr: "piped",
    }).output();
    assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
    return await Deno.readTextFile(out);
  } finally {
    await Deno.remove(out);
  }
}

/** Serves the example page, configured for `relay`, `formId` and `pin`, on its own origin. */
async function serveOwnPage(relay: string, formId: string, pin: string) {
  const dir = new URL("../../docs/web/", import.meta.url);
  const html = (await Deno.readTextFile(new URL("own_page.html", dir)))
    .replaceAll("https://forms.example.com", relay)
    .replace(/data-form="[^"]*"/, `data-form="${formId}"`)
    .replace(/data-pin="[^"]*"/, `data-pin="${pin}"`);
  const files: Record<string, [string, string]> = {
    "/": [html, "text/html; charset=utf-8"],
    "/own_page.js": [await Deno.readTextFile(new URL("own_page.js", dir)), "text/javascript"],
    "/sealpost-sdk.js": [await sdkBundle(), "text/javascript"],
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const file = files[new URL(req.url).pathname];
    return file
      ? new Response(file[0], { headers: { "content-type": file[1] } })
      : new Response("not found", { status: 404 });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

Deno.test("a page on another origin submits with the SDK, file included (CORS)", async () => {
  const fx = await webFixture(FIELDS);
  const site = await serveOwnPage(fx.inst.url, fx.formId, fx.pin);
  try {
    assert.notEqual(new URL(site.url).origin, new URL(fx.inst.url).origin);
    const page = await fx.browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(String(e)));
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    await page.goto(site.url + "/");
    await page.getByLabel("Name").fill("Grace");
    await page.getByLabel("Message").fill("From my own site");
    const photo = new Uint8Array(300_000).map((_, i) => (i * 7) & 255);
    await page.getByLabel("Photo").setInputFiles({
      name: "grace.png",
      mimeType: "image/png",
      buffer: Buffer.from(photo),
    });
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator("#result", { hasText: "Sent" }).waitFor({ timeout: 20_000 });
    const id = (await page.locator("#result").textContent())!.replace("Sent: ", "");
    const record = await recordOf(fx, id);
    assert.equal(record.values.name, "Grace");
    assert.equal(record.values.message, "From my own site");
    assert.equal(record.values.photo.encryption, "age", "the SDK encrypts a new form's files");
    assert.deepEqual(await recordFileBytes(fx, id, "photo"), photo);
    assert.deepEqual(problems, []);
  } finally {
    await site.close();
    await fx.close();
  }
});

Deno.test("a form that allows other origins only is refused to this page", async () => {
  const fx = await webFixture(FIELDS);
  try {
    const updated = await call(`${fx.inst.url}/vault/forms/${fx.formId}`, {
      method: "PUT",
      token: fx.token,
      json: { fields: FIELDS, allowedOrigins: ["https://elsewhere.example"], publish: true },
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    const site = await serveOwnPage(fx.inst.url, fx.formId, fx.pin);
    try {
      const page = await fx.browser.newPage();
      const problems: string[] = [];
      page.on("pageerror", (e) => problems.push(String(e)));
      page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
      await page.goto(site.url + "/");
      const deadline = Date.now() + 10_000;
      while (!problems.some((p) => /CORS|Access-Control-Allow-Origin/.test(p))) {
        assert.ok(Date.now() < deadline, `no CORS refusal: ${problems.join(" | ")}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await site.close();
    }
    // The relay's own hosted page still works for that form.
    const own = await fx.browser.newPage();
    await own.goto(`${fx.inst.url}/f/${fx.formId}#pin=${fx.pin}`);
    await whenReady(own);
    await own.getByLabel("Name").fill("Own page");
    const { id } = await submitForReceipt(own);
    assert.equal((await recordOf(fx, id!)).values.name, "Own page");
  } finally {
    await fx.close();
  }
});
