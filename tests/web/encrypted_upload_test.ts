import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { paddedSize } from "../../src/crypto/age_encrypt.ts";
import { sha256Hex } from "../../src/sdk/upload.ts";
import { shareLink } from "../../src/web/links.ts";
import { call } from "../_support/server.ts";
import { blobBytes, recordOf, submitForReceipt, webFixture, whenReady } from "./_fixture.ts";

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "doc", label: "Document", kind: "attachment" },
];
const MARKER = "PAGE-PLAINTEXT-MARKER-51c2";

Deno.test("form page: an encrypted form's file is encrypted in the browser; the vault reads it", async () => {
  const fx = await webFixture(FIELDS, "Tips");
  try {
    const v2 = await call(`${fx.inst.url}/vault/forms/${fx.formId}`, {
      method: "PUT",
      token: fx.token,
      json: { fields: FIELDS, files: "encrypted", publish: true },
    });
    assert.equal(v2.status, 200, JSON.stringify(v2.body));
    const page = await fx.browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(shareLink(fx.inst.url, fx.formId, fx.pin));
    await whenReady(page);
    const plain = Buffer.from(`${MARKER} line\n`.repeat(9000)); // ~250 KB, several chunks
    await page.getByLabel("Name").fill("Source");
    await page.getByLabel("Document", { exact: true }).setInputFiles({
      name: "notes.txt",
      mimeType: "text/plain",
      buffer: plain,
    });
    await page.locator("#sp-doc-status", { hasText: "Ready to upload" }).waitFor();
    const { id } = await submitForReceipt(page);
    const record = await recordOf(fx, id);
    const doc = record.values.doc;
    assert.equal(doc.encryption, "age");
    assert.equal(doc.mime, "text/plain");
    assert.equal(doc.fileName, "notes.txt");
    assert.equal(doc.sizeBytes, plain.length);

    // The relay holds an age file of the padded size, never the plaintext.
    const stored = await blobBytes(fx, doc);
    assert.equal(await sha256Hex(stored), doc.hash);
    assert.equal(new TextDecoder().decode(stored.subarray(0, 21)), "age-encryption.org/v1");
    assert.ok(stored.length > paddedSize(plain.length));
    assert.ok(!new TextDecoder("latin1").decode(stored).includes(MARKER));

    // The vault decrypts it for the owner.
    const link = await call(
      `${fx.inst.url}/vault/forms/${fx.formId}/records/${id}/files/doc`,
      { token: fx.token },
    );
    assert.deepEqual(await (await fetch(link.body.url)).bytes(), new Uint8Array(plain));
    assert.deepEqual(errors, []);
  } finally {
    await fx.close();
  }
});
