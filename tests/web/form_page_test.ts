/**
 * The hosted form page in Chromium, against a real instance: every field kind with a 5 MB
 * image and a PDF ends up in the vault with exactly those values and bytes (the plain file
 * flow, where the relay stores the bytes as sent); an invalid value shows its error next to
 * its field and sends nothing; the edit link amends the same record from an empty form (the
 * page keeps nothing in the browser); a wrong pin, a missing pin and a tampered manifest are
 * refused visibly.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { sha256 } from "@noble/hashes/sha2.js";
import type { Page } from "playwright-core";
import { toHex } from "../../src/crypto/encoding.ts";
import { shareLink } from "../../src/web/links.ts";
import { call } from "../_support/server.ts";
import {
  ALL_FIELDS,
  blobBytes,
  recordFileBytes,
  recordOf,
  submitForReceipt,
  type WebFixture,
  webFixture,
  whenReady,
} from "./_fixture.ts";

/** Pseudo-random bytes (deterministic), after a given header. */
function bytes(size: number, header: number[]): Uint8Array {
  const out = new Uint8Array(size);
  let x = 0x2545f491;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 255;
  }
  out.set(header);
  return out;
}

const PNG = bytes(5 * 1024 * 1024, [137, 80, 78, 71, 13, 10, 26, 10]);
const PDF = bytes(40_000, [...new TextEncoder().encode("%PDF-1.7\n")]);

/** Opens the share link and waits until the page verified the manifest. */
async function open(fx: WebFixture, hash?: string): Promise<Page> {
  const page = await fx.browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  (page as Page & { errors: string[] }).errors = errors;
  const url = shareLink(fx.inst.url, fx.formId, fx.pin);
  await page.goto(hash === undefined ? url : url.split("#")[0] + hash);
  return page;
}

const errorsOf = (page: Page) => (page as Page & { errors: string[] }).errors;

async function fillEverything(page: Page) {
  await page.getByLabel("Name").fill("Ada Lovelace");
  await page.getByLabel("Email").fill("ada@example.com");
  await page.getByLabel("Website").fill("https://ada.example/notes");
  await page.getByLabel("Phone").fill("+44 20 7946 0000");
  await page.getByLabel("About you").fill("Line one\nLine <two> & three");
  await page.getByLabel("Age").fill("36");
  await page.getByLabel("I agree to be contacted").check();
  await page.getByLabel("Preferred day").fill("2025-06-02");
  await page.getByLabel("Meeting time").fill("2025-06-01T10:30");
  await page.getByLabel("UTC offset").selectOption("+02:00");
  await page.getByLabel("M", { exact: true }).check();
  await page.getByLabel("red", { exact: true }).check();
  await page.getByLabel("green", { exact: true }).check();
  await page.getByLabel("Tags").fill("alpha, beta ,gamma");
  await page.getByLabel("Latitude").fill("51.5");
  await page.getByLabel("Longitude").fill("-0.125");
  await page.getByLabel("Photo", { exact: true }).setInputFiles({
    name: "photo.png",
    mimeType: "image/png",
    buffer: Buffer.from(PNG),
  });
  await page.getByLabel("CV", { exact: true }).setInputFiles({
    name: "cv.pdf",
    mimeType: "application/pdf",
    buffer: Buffer.from(PDF),
  });
}

Deno.test("every field kind, a 5 MB image and a PDF reach the vault exactly (plain files)", async () => {
  // The specification's flow (files: "plain"): the relay stores the bytes as sent.
  const fx = await webFixture(ALL_FIELDS, "Every kind", undefined, { files: "plain" });
  try {
    const page = await open(fx);
    await whenReady(page);
    await fillEverything(page);
    await page.locator("#sp-photo-preview").waitFor({ state: "visible" });
    await page.locator("#sp-photo-status", { hasText: "Ready to upload" }).waitFor();
    const { id, link } = await submitForReceipt(page);
    assert.match(id, /^[0-9a-f]{32}$/);
    // The edit token is in the fragment only: never in a path or query a server could log.
    const edit = new URL(link);
    assert.equal(edit.pathname, `/f/${fx.formId}`);
    assert.equal(edit.search, "");
    assert.match(edit.hash, new RegExp(`^#pin=${fx.pin}&submission=${id}&token=.+`));
    assert.equal(await page.locator("#sp-photo-progress").getAttribute("value"), "100");

    const record = await recordOf(fx, id);
    const { photo, cv, ...rest } = record.values;
    assert.deepEqual(rest, {
      name: "Ada Lovelace",
      email: "ada@example.com",
      site: "https://ada.example/notes",
      phone: "+44 20 7946 0000",
      bio: "Line one\nLine <two> & three",
      age: 36,
      agree: true,
      day: "2025-06-02",
      when: "2025-06-01T10:30+02:00",
      size: "M",
      colors: ["red", "green"],
      tags: ["alpha", "beta", "gamma"],
      place: { lat: 51.5, lng: -0.125 },
    });
    for (
      const [ref, data, name, mime] of [
        [photo, PNG, "photo.png", "image/png"],
        [cv, PDF, "cv.pdf", "application/pdf"],
      ] as const
    ) {
      assert.equal(ref.owned, true);
      assert.equal(ref.fileName, name);
      assert.equal(ref.mime, mime);
      assert.equal(ref.sizeBytes, data.length);
      assert.equal(ref.hash, toHex(sha256(data)));
      assert.deepEqual(await blobBytes(fx, ref), data);
    }
    assert.deepEqual(errorsOf(page), [], "no script error and no CSP violation");
  } finally {
    await fx.close();
  }
});

Deno.test("an invalid value shows its error next to its field and nothing is sent", async () => {
  const fx = await webFixture();
  try {
    const page = await open(fx);
    await whenReady(page);
    const sent: string[] = [];
    page.on("request", (r) => r.method() !== "GET" && sent.push(`${r.method()} ${r.url()}`));
    await page.getByLabel("Email").fill("not an email");
    await page.getByLabel("Age").fill("200");
    await page.getByRole("button", { name: "Submit" }).click();
    const email = page.locator("#sp-email");
    await page.locator("#sp-email-err").waitFor({ state: "visible" });
    assert.match(await page.locator("#sp-email-err").textContent() ?? "", /email address/);
    assert.equal(await email.getAttribute("aria-invalid"), "true");
    assert.match(await email.getAttribute("aria-describedby") ?? "", /\bsp-email-err\b/);
    assert.match(await page.locator("#sp-name-err").textContent() ?? "", /required/);
    assert.match(await page.locator("#sp-age-err").textContent() ?? "", /at most 150/);
    assert.equal(await page.locator("#sp-site-err").isVisible(), false);
    assert.equal(await page.locator("#sp-site").getAttribute("aria-invalid"), null);
    assert.match(await page.locator("#sp-notice").textContent() ?? "", /3 fields need/);
    // The focus moved to the first field at fault.
    assert.equal(await page.evaluate("document.activeElement?.id"), "sp-name");
    assert.deepEqual(sent, []);
    // Fixing a field clears its message on the next try.
    await page.getByLabel("Name").fill("Ada");
    await page.getByRole("button", { name: "Submit" }).click();
    await page.locator("#sp-name-err").waitFor({ state: "hidden" });
    assert.equal(await page.locator("#sp-name").getAttribute("aria-invalid"), null);
    assert.deepEqual(sent, []);
    const queue = await call(`${fx.inst.url}/vault/forms/${fx.formId}/records`, {
      token: fx.token,
    });
    assert.deepEqual(queue.body.items, []);
  } finally {
    await fx.close();
  }
});

Deno.test("the edit link amends the same record, from an empty form: the browser kept nothing", async () => {
  const fields = [
    { id: "name", label: "Name", kind: "text", required: true },
    { id: "size", label: "Size", kind: "choice", options: ["S", "M"] },
    { id: "doc", label: "Document", kind: "attachment" },
  ];
  const fx = await webFixture(fields);
  try {
    const page = await open(fx);
    await whenReady(page);
    await page.getByLabel("Name").fill("First");
    await page.getByLabel("S", { exact: true }).check();
    await page.getByLabel("Document", { exact: true }).setInputFiles({
      name: "a.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("hello"),
    });
    const { id, link } = await submitForReceipt(page);
    const first = await recordOf(fx, id);

    const edit = await fx.browser.newPage();
    await edit.goto(link);
    await whenReady(edit);
    assert.match(await edit.locator("#sp-notice").textContent() ?? "", /changing submission/);
    assert.match(await edit.locator("#sp-notice").textContent() ?? "", /does not keep/);
    assert.equal(await edit.getByLabel("Name").inputValue(), "", "nothing was kept to prefill");
    assert.equal(await edit.getByLabel("S", { exact: true }).isChecked(), false);
    await edit.getByLabel("Name").fill("Second");
    await edit.getByLabel("M", { exact: true }).check();
    await edit.getByLabel("Document", { exact: true }).setInputFiles({
      name: "b.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("hello again"),
    });
    const again = await submitForReceipt(edit);
    assert.equal(again.id, id);
    const updated = await recordOf(fx, id, (r) => r.values.name === "Second");
    assert.equal(updated._recordId, first._recordId);
    assert.equal(updated.values.size, "M");
    assert.equal(updated.values.doc.fileName, "b.txt");
    assert.deepEqual(await recordFileBytes(fx, id, "doc"), new TextEncoder().encode("hello again"));
    const list = await call(`${fx.inst.url}/vault/forms/${fx.formId}/records`, {
      token: fx.token,
    });
    assert.equal(list.body.items.length, 1, "still one record");
  } finally {
    await fx.close();
  }
});

Deno.test("a wrong pin, no pin and a tampered manifest are refused visibly", async () => {
  const fx = await webFixture([{ id: "name", label: "Name", kind: "text" }]);
  try {
    const wrong = await open(fx, `#pin=${"0".repeat(64)}`);
    await wrong.locator("#sp-notice.bad").waitFor();
    assert.match(await wrong.locator("#sp-notice").textContent() ?? "", /could not be verified/);
    assert.equal(await wrong.locator("#sp-form").isVisible(), false);
    assert.equal(await wrong.locator("#sp-notice").getAttribute("role"), "alert");

    const none = await open(fx, "");
    await none.locator("#sp-notice.bad").waitFor();
    assert.match(await none.locator("#sp-notice").textContent() ?? "", /cannot verify/);
    assert.equal(await none.locator("#sp-form").isVisible(), false);

    // A relay (or anyone on the path) swaps the recipient key: the signature no longer holds.
    const tampered = await fx.browser.newPage();
    await tampered.route("**/manifest", async (route) => {
      const response = await route.fetch();
      const manifest = await response.json();
      manifest.recipient.publicKey = btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));
      await route.fulfill({ response, json: manifest });
    });
    await tampered.goto(shareLink(fx.inst.url, fx.formId, fx.pin));
    await tampered.locator("#sp-notice.bad").waitFor();
    assert.match(await tampered.locator("#sp-notice").textContent() ?? "", /could not be verified/);
    assert.equal(await tampered.locator("#sp-submit").isVisible(), false);
  } finally {
    await fx.close();
  }
});

Deno.test("a failed upload shows its error with a retry button, and the retry completes", async () => {
  const fx = await webFixture([
    { id: "name", label: "Name", kind: "text", required: true },
    { id: "cv", label: "CV", kind: "attachment" },
  ]);
  try {
    const page = await open(fx);
    await whenReady(page);
    let refused = 0;
    await page.route("**/blobs/**", async (route) => {
      if (route.request().method() === "PUT" && refused++ === 0) return await route.abort();
      await route.continue();
    });
    await page.getByLabel("Name").fill("Retry");
    await page.getByLabel("CV", { exact: true }).setInputFiles({
      name: "cv.pdf",
      mimeType: "application/pdf",
      buffer: Buffer.from(PDF),
    });
    await page.getByRole("button", { name: "Submit" }).click();
    const retry = page.getByRole("button", { name: "Retry upload" });
    await retry.waitFor({ state: "visible" });
    assert.match(await page.locator("#sp-cv-status").textContent() ?? "", /Upload failed/);
    assert.match(await page.locator("#sp-notice").textContent() ?? "", /Nothing was sent/);
    assert.equal(await page.locator("#sp-receipt").isVisible(), false);
    await retry.click();
    await page.locator("#sp-cv-status", { hasText: "Uploaded" }).waitFor();
    assert.equal(await retry.isVisible(), false);
    const { id } = await submitForReceipt(page);
    const record = await recordOf(fx, id);
    assert.deepEqual(await recordFileBytes(fx, id, "cv"), PDF);
    assert.equal(record.values.cv.encryption, "age", "a new form encrypts files");
    assert.equal(refused, 2, "one refused PUT, one retried PUT, none at submit");
  } finally {
    await fx.close();
  }
});

Deno.test("hashing a 40 MB file leaves the page's event loop turning", async () => {
  const fx = await webFixture([{ id: "cv", label: "CV", kind: "attachment" }]);
  try {
    const page = await open(fx);
    await whenReady(page);
    // The file is made in the page (handing 40 MB over from the test would itself block the
    // page). A 10 ms interval counts the turns the page's event loop takes while the file is
    // hashed, up to the moment the status says it is ready: a hash that held the main thread
    // from the change event to that status would leave the count at zero. (A count, not a
    // duration: it does not depend on how fast this machine is.)
    await page.evaluate(`(() => {
      const data = new Uint8Array(40 * 1024 * 1024).map((_, i) => (i * 31) & 255);
      const transfer = new DataTransfer();
      transfer.items.add(new File([data], "big.pdf", { type: "application/pdf" }));
      const status = document.getElementById("sp-cv-status");
      globalThis.__ticks = 0;
      globalThis.__ticksAtReady = -1;
      globalThis.__tick = setInterval(() => globalThis.__ticks++, 10);
      new MutationObserver((_, observer) => {
        if (!status.textContent.includes("Ready to upload")) return;
        globalThis.__ticksAtReady = globalThis.__ticks;
        clearInterval(globalThis.__tick);
        observer.disconnect();
      }).observe(status, { childList: true, characterData: true, subtree: true });
      const input = document.getElementById("sp-cv");
      input.files = transfer.files;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    })()`);
    await page.locator("#sp-cv-status", { hasText: "Ready to upload" }).waitFor({
      timeout: 30_000,
    });
    const ticks = Number(await page.evaluate("__ticksAtReady"));
    assert.ok(ticks >= 2, `the page's event loop turned ${ticks} times while hashing 40 MB`);
  } finally {
    await fx.close();
  }
});
