/**
 * The hosted form page on a relay with `blobs.backend = "s3"`, in Chromium: the files go from
 * the browser straight to radosgw (cross-origin, through the bucket's CORS and the page's
 * connect-src), and reach the vault byte for byte (a form with `files: "plain"`, so the store
 * holds the bytes as sent).
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { shareLink } from "../../src/web/links.ts";
import { startOn } from "../blobs/_backends.ts";
import { random, sha256 } from "../blobs/_helpers.ts";
import { blobBytes, recordOf, submitForReceipt, webFixture, whenReady } from "./_fixture.ts";

Deno.test("[s3] the form page uploads an image and a PDF straight to the store", async () => {
  let store = "";
  const fx = await webFixture(
    [
      { id: "name", label: "Name", kind: "text", required: true },
      { id: "photo", label: "Photo", kind: "image", accept: ["image/*"] },
      { id: "cv", label: "CV", kind: "attachment", accept: ["application/pdf"] },
    ],
    "Files to S3",
    async () => {
      const inst = await startOn("s3");
      store = inst.s3!.endpoint;
      return inst;
    },
    { files: "plain" },
  );
  try {
    const hosted = await fetch(`${fx.inst.url}/f/${fx.formId}`);
    await hosted.body?.cancel();
    assert.match(
      hosted.headers.get("content-security-policy")!,
      new RegExp(`connect-src [^;]*${store}`),
    );
    const page = await fx.browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    const puts: string[] = [];
    page.on("request", (r) => r.method() === "PUT" && puts.push(new URL(r.url()).origin));
    await page.goto(shareLink(fx.inst.url, fx.formId, fx.pin));
    await whenReady(page);
    const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, ...random(300_000)]);
    const pdf = new Uint8Array([...new TextEncoder().encode("%PDF-1.7\n"), ...random(20_000)]);
    await page.getByLabel("Name").fill("Grace");
    await page.getByLabel("Photo", { exact: true }).setInputFiles({
      name: "photo.png",
      mimeType: "image/png",
      buffer: Buffer.from(png),
    });
    await page.getByLabel("CV", { exact: true }).setInputFiles({
      name: "cv.pdf",
      mimeType: "application/pdf",
      buffer: Buffer.from(pdf),
    });
    await page.locator("#sp-photo-status", { hasText: "Ready to upload" }).waitFor();
    const { id } = await submitForReceipt(page);
    assert.deepEqual(puts, [store, store], "both files went to the store, not the relay");
    const record = await recordOf(fx, id);
    for (const [ref, data] of [[record.values.photo, png], [record.values.cv, pdf]]) {
      assert.equal(ref.hash, sha256(data));
      assert.deepEqual(await blobBytes(fx, ref), data);
    }
    assert.deepEqual(errors, [], "no script error and no CSP violation");
  } finally {
    await fx.close();
  }
});
