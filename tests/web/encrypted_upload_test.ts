/**
 * A new form's default (`files: "encrypted"`) in Chromium: the page encrypts the file before
 * it leaves, the relay's disk holds only age ciphertext, and the vault reads the file back.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { blobPathParts } from "../../src/blobs/fs_store.ts";
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

Deno.test("form page: a default form's file is encrypted in the browser; the relay's disk holds none of it", async () => {
  const fx = await webFixture(FIELDS, "Tips");
  try {
    const manifest = await call(`${fx.inst.url}/forms/${fx.formId}/manifest`);
    assert.equal(manifest.body.files, "encrypted", "new forms encrypt files by default");
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
    // The same bytes lie in the data dir: age ciphertext, not the file.
    const onDisk = await Deno.readFile(
      join(
        fx.inst.config.data_dir,
        "blobs",
        ...blobPathParts({ userId: fx.inst.credentials.userId, hash: doc.hash }),
      ),
    );
    assert.deepEqual(onDisk, stored);
    assert.equal(new TextDecoder().decode(onDisk.subarray(0, 21)), "age-encryption.org/v1");
    assert.ok(!new TextDecoder("latin1").decode(onDisk).includes(MARKER));

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
