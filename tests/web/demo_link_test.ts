/**
 * The first `sealpost serve` prints the demo form's share link, and that link opens a page
 * that verifies the form, says it is the demo, and submits to it (the README quickstart's first
 * step).
 */
import assert from "node:assert/strict";
import { launchChromium } from "../_support/chromium.ts";
import { freePort, waitFor } from "../_support/process.ts";
import { submitForReceipt, whenReady } from "./_fixture.ts";

/** Reads `stream` until a line matches `re` (at most 30 s); the match. */
async function lineMatching(stream: ReadableStream<Uint8Array>, re: RegExp) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const end = Date.now() + 30_000;
  let text = "";
  try {
    while (Date.now() < end) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const m = re.exec(text);
      if (m) return m;
    }
  } finally {
    reader.releaseLock();
  }
  throw new Error(`No line matching ${re} in:\n${text}`);
}

Deno.test("serve prints the demo form's share link, which opens a working form page", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-demo-" });
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../../main.ts", import.meta.url).pathname, "serve"],
    env: {
      SEALPOST_DATA_DIR: `${dir}/data`,
      SEALPOST_SERVER_PORT: String(port),
      SEALPOST_SERVER_REQUEST_LOG: "false",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const browser = await launchChromium(`${dir}/profile`);
  try {
    const m = await lineMatching(child.stdout, /open the form: +(\S+)\n/);
    const link = new URL(m[1]);
    assert.equal(link.origin, `http://127.0.0.1:${port}`);
    assert.match(link.hash, /^#pin=[0-9a-f]{64}$/);
    await waitFor(`${link.origin}/healthz`);
    const page = await browser.newPage();
    await page.goto(link.href);
    await whenReady(page);
    assert.match(await page.locator("#sp-notice").textContent() ?? "", /^Verified/);
    // A visitor can tell it is the demo (the console's front page offers to delete it).
    assert.match(await page.locator("h1").textContent() ?? "", /\bdemo\b/);
    assert.match(await page.title(), /\bdemo\b/);
    await page.getByLabel("Your name").fill("Ada");
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByLabel("Rating (1-5)").fill("5");
    const { id } = await submitForReceipt(page);
    assert.match(id, /^[0-9a-f]{32}$/);
  } finally {
    await browser.close();
    child.kill("SIGTERM");
    await child.stdout.cancel().catch(() => {});
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
});
