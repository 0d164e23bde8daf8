/**
 * bench/formpage: the hosted form page in Chromium (Debian's, via playwright-core) against
 * `sealpost serve` in a child process.
 *
 * - Page weight: bytes of the HTML, the island's JavaScript and the style sheet, raw and as
 *   sent gzip-compressed (budget: under 100 KB compressed in all).
 * - Navigation to interactive: from navigation start to the island's `sealpost:interactive`
 *   mark (manifest fetched and verified, fields rendered, Submit enabled), with the browser
 *   cache off (cold) and on (warm); median of the runs.
 * - Seal and submit 1 KiB: from pressing Submit (`sealpost:submit`) to the receipt
 *   (`sealpost:sent`): validate, seal, POST, show the receipt. Baseline, in the same page and
 *   the same round: a bare `fetch` POST of an envelope of the same size (sealed beforehand),
 *   the least any page must do. Budget: within 2x of the baseline (median ratio).
 *
 * Usage: deno run -A bench/formpage.ts [--runs 15] [--timeout 300]
 */
import { parseArgs } from "node:util";
import { buildEnvelope, buildPayload, fetchManifest, seal } from "../src/sdk/mod.ts";
import { FORM_SCRIPT, FORM_STYLE } from "../src/web/assets.ts";
import { shareLink } from "../src/web/links.ts";
import { launchChromium } from "../tests/_support/chromium.ts";
import { spawnServer } from "../tests/_support/process.ts";
import { call } from "../tests/_support/server.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "15" }, timeout: { type: "string", default: "300" } },
});
const runs = Number(values.runs);
const deadline = setTimeout(() => {
  console.error(`bench/formpage: no result within ${values.timeout} s`);
  Deno.exit(1);
}, Number(values.timeout) * 1000);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => `${x.toFixed(1)} ms`;
const kb = (x: number) => `${(x / 1000).toFixed(1)} KB`;

async function gzipSize(text: string): Promise<number> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

const dir = await Deno.makeTempDir({ prefix: "sealpost-bench-formpage-" });
const server = await spawnServer(`${dir}/data`);
const browser = await launchChromium(`${dir}/profile`);
try {
  const token = server.credentials.ownerToken;
  const db = await call(`${server.url}/vault/databases`, {
    method: "POST",
    token,
    json: { name: "bench" },
  });
  const form = await call(`${server.url}/vault/forms`, {
    method: "POST",
    token,
    json: {
      databaseId: db.body.id,
      title: "Bench",
      fields: [{ id: "message", label: "Message", kind: "richText", required: true }],
      publish: true,
    },
  });
  const formId = form.body.formId;
  const pin = (await call(`${server.url}/vault/manifest-key`, { token })).body.fingerprint;
  const link = shareLink(server.url, formId, pin);

  // Page weight, as the relay sends it.
  const html = await (await fetch(link.split("#")[0])).text();
  const parts = { html, js: FORM_SCRIPT.body, css: FORM_STYLE.body };
  const raw = Object.values(parts).reduce((n, t) => n + new TextEncoder().encode(t).length, 0);
  const sizes = await Promise.all(Object.values(parts).map(gzipSize));
  const compressed = sizes.reduce((a, b) => a + b, 0);
  console.log(
    `page weight: ${kb(raw)} raw, ${kb(compressed)} gzip (html ${kb(sizes[0])}, ` +
      `js ${kb(sizes[1])}, css ${kb(sizes[2])}); budget 100 KB compressed: ` +
      (compressed < 100_000 ? "met" : "MISSED"),
  );

  // Navigation to interactive, cold and warm.
  const page = await browser.newPage();
  const cdp = await browser.newCDPSession(page);
  const interactive = async () => {
    // Via a blank page: going to the same URL with a fragment would not load it again.
    await page.goto("about:blank");
    await page.goto(link, { waitUntil: "commit" });
    await page.waitForFunction(() =>
      performance.getEntriesByName("sealpost:interactive").length > 0
    );
    return Number(
      await page.evaluate("performance.getEntriesByName('sealpost:interactive')[0].startTime"),
    );
  };
  for (const cold of [true, false]) {
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: cold });
    await interactive(); // one unmeasured load
    const times = [];
    for (let i = 0; i < runs; i++) times.push(await interactive());
    console.log(
      `navigation to interactive (${cold ? "cold" : "warm"} cache): median ${ms(median(times))}`,
    );
  }

  // Seal and submit 1 KiB, beside a bare fetch POST of an envelope of the same size.
  const manifest = await fetchManifest(formId, { relayUrl: server.url, pin });
  const message = "x".repeat(1024);
  const page_ = [], bare = [], ratios = [];
  /** A bare fetch POST of `envelope` from the page; its time in ms. */
  const barePost = async (envelope: unknown) =>
    Number(
      await page.evaluate(async ({ url, body }) => {
        const t0 = performance.now();
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        await res.json();
        return performance.now() - t0;
      }, { url: `${server.url}/submissions`, body: JSON.stringify(envelope) }),
    );
  for (let i = 0; i < runs + 1; i++) {
    const envelope = buildEnvelope(
      manifest,
      await seal(buildPayload(manifest, { message }), manifest.recipient.publicKey),
    );
    await interactive();
    const bareFirst = i % 2 === 0;
    // Alternating which goes first, so neither always follows the other's ingest.
    const base1 = bareFirst ? await barePost(envelope) : 0;
    await page.getByLabel("Message").fill(message);
    await page.getByRole("button", { name: "Submit" }).click();
    await page.waitForFunction(() => performance.getEntriesByName("sealpost:sent").length > 0);
    const took = Number(
      await page.evaluate(
        "performance.getEntriesByName('sealpost:sent')[0].startTime - " +
          "performance.getEntriesByName('sealpost:submit')[0].startTime",
      ),
    );
    const base = bareFirst ? base1 : await barePost(envelope);
    if (i === 0) continue; // warm-up
    page_.push(took);
    bare.push(base);
    ratios.push(took / base);
  }
  const ratio = median(ratios);
  console.log(
    `seal+submit 1 KiB: median ${ms(median(page_))}; bare fetch POST (baseline): median ` +
      `${ms(median(bare))}; median ratio ${ratio.toFixed(2)}x; budget 2x: ` +
      (ratio <= 2 ? "met" : "MISSED"),
  );
} finally {
  clearTimeout(deadline);
  await browser.close();
  await server.stop();
  await Deno.remove(dir, { recursive: true });
}
