/**
 * The `deno bundle`d browser build of the SDK in headless Chromium (Debian's, driven by
 * playwright-core): the page fetches and verifies the manifest, uploads a file and submits;
 * the test opens what the page sealed with the server-side `open`.
 */
import assert from "node:assert/strict";
import { fromBase64, toBase64 } from "../../src/crypto/encoding.ts";
import { generateKeyPair } from "../../src/crypto/keys.ts";
import { open } from "../../src/crypto/sealed_box.ts";
import {
  generateSigningKeyPair,
  manifestKeyFingerprint,
  signManifest,
} from "../../src/crypto/signing.ts";
import { buildValuesSchema } from "../../src/forms/fields.ts";
import type { Manifest } from "../../src/forms/manifest.ts";
import { SubmissionPayloadSchema } from "../../src/forms/payload.ts";
import { launchChromium } from "../_support/chromium.ts";
import { startFakeRelay } from "./_fake_relay.ts";

async function bundle(entry: string, out: string): Promise<string> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=browser",
      "-o",
      out,
      new URL(entry, import.meta.url).pathname,
    ],
    stderr: "piped",
  }).output();
  assert.equal(result.code, 0, new TextDecoder().decode(result.stderr));
  return await Deno.readTextFile(out);
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>sdk</title>
<script type="module">
import * as sdk from "/sdk.js";
import * as box from "/sealed_box.js";
window.sdk = sdk;
window.box = box;
window.loaded = true;
</script>`;

Deno.test("the browser build seals, uploads and submits in headless Chromium", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-browser-" });
  const recipient = generateKeyPair();
  const manifestKey = generateSigningKeyPair();
  const pin = manifestKeyFingerprint(manifestKey.publicKey);
  const relay = await startFakeRelay(
    (url) =>
      signManifest({
        formId: "contact",
        schemaVersion: 2,
        title: "Contact",
        recipient: { publicKey: toBase64(recipient.publicKey), userId: "user-1" },
        relayUrl: url,
        fields: [
          { id: "name", label: "Name", kind: "text", required: true },
          { id: "when", label: "When", kind: "dateTime" },
          { id: "where", label: "Where", kind: "geo" },
          { id: "photo", label: "Photo", kind: "image" },
        ],
      }, manifestKey.secretKey),
    {
      "/": { type: "text/html; charset=utf-8", body: PAGE },
      "/sdk.js": {
        type: "text/javascript",
        body: await bundle("../../src/sdk/mod.ts", `${dir}/sdk.js`),
      },
      "/sealed_box.js": {
        type: "text/javascript",
        body: await bundle("../../src/crypto/sealed_box.ts", `${dir}/sealed_box.js`),
      },
    },
  );
  const context = await launchChromium(`${dir}/profile`);
  try {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(relay.url + "/");
    await page.waitForFunction(() => (globalThis as { loaded?: boolean }).loaded === true, null, {
      timeout: 20_000,
    });

    const result = await page.evaluate(async (pin: string) => {
      // deno-lint-ignore no-explicit-any
      const { sdk } = globalThis as any;
      const manifest = await sdk.fetchManifest("contact", { relayUrl: location.origin, pin });
      const photo = new Blob([new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10])], {
        type: "image/png",
      });
      const receipt = await sdk.submitForm(manifest, {
        name: "Ada",
        when: "2025-06-01 10:00+02:00",
        where: "51.5,-0.12",
      }, { files: { photo: { data: photo, fileName: "dot.png" } } });
      let tampered = "";
      try {
        await sdk.fetchManifest("contact", { relayUrl: location.origin, pin: "0".repeat(64) });
      } catch (e) {
        tampered = `${(e as Error).name}:${(e as { code: string }).code}`;
      }
      return { receipt, impl: await sdk.x25519Impl(), manifest, tampered };
    }, pin);
    assert.deepEqual(errors, []);
    assert.equal(result.impl, "webcrypto");
    assert.equal(result.tampered, "ManifestError:manifest_unverified");

    const envelope = relay.envelopes.get(result.receipt.submissionId)!;
    assert.ok(envelope, "the relay got the envelope");
    const plain = await open(
      fromBase64(envelope.ciphertext),
      recipient.publicKey,
      recipient.secretKey,
    );
    const payload = SubmissionPayloadSchema.parse(JSON.parse(new TextDecoder().decode(plain)));
    assert.equal(payload.formVersion, 2);
    const values = buildValuesSchema((result.manifest as Manifest).fields, { mode: "strict" })
      .parse(payload.values);
    assert.equal(values.name, "Ada");
    assert.equal(values.when, "2025-06-01T10:00+02:00");
    assert.deepEqual(values.where, { lat: 51.5, lng: -0.12 });
    const photo = values.photo as { hash: string; mime: string; fileName: string };
    assert.equal(photo.mime, "image/png");
    assert.equal(photo.fileName, "dot.png");
    assert.deepEqual(
      relay.blobs.get(photo.hash)?.bytes,
      new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    );

    // Both X25519 paths of the core, in the page.
    for (const x25519 of ["webcrypto", "noble"]) {
      for (const size of [0, 1, 1000, 65_536]) {
        const sealed = await page.evaluate(async ({ pk, size, x25519 }) => {
          // deno-lint-ignore no-explicit-any
          const { box } = globalThis as any;
          const m = new Uint8Array(size).map((_, i) => (i * 31 + 7) & 255);
          const key = Uint8Array.from(atob(pk), (c) => c.charCodeAt(0));
          return Array.from(await box.seal(m, key, { x25519 }) as Uint8Array);
        }, { pk: toBase64(recipient.publicKey), size, x25519 });
        const bytes = Uint8Array.from(sealed);
        const opened = await open(bytes, recipient.publicKey, recipient.secretKey);
        assert.equal(opened.length, size, `${x25519} ${size}`);
        assert.deepEqual(opened, new Uint8Array(size).map((_, i) => (i * 31 + 7) & 255));
      }
    }
  } finally {
    await context.close();
    await relay.close();
    await Deno.remove(dir, { recursive: true });
  }
});
