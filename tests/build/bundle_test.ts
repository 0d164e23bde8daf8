/**
 * The single-file build (`deno task bundle`, src/build/bundle.ts), run as an operator would: the
 * file alone in an empty folder, an empty Deno cache, `deno run -A --unstable-kv sealpost.js`.
 * It serves, takes a submission from its own `submit`, turns it into a record that its
 * `records list` shows, and delivers a signed webhook to a loopback receiver. Then a backlog
 * (taken while it runs as the relay alone) is opened on its embedded worker thread, which
 * ingest uses for pages of 32 envelopes or more.
 *
 * `SEALPOST_BUNDLE=dist/sealpost.js` tests that file (CI builds it first); otherwise the test
 * builds one into a temporary folder.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildBundle, leftovers } from "../../src/build/bundle.ts";
import {
  buildEnvelope,
  buildPayload,
  fetchManifest,
  seal,
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
} from "../../src/sdk/mod.ts";
import { freePort, waitFor } from "../_support/process.ts";

const decoder = new TextDecoder();
const BACKLOG = 40;

/** The caller's environment without `SEALPOST_*`, with `DENO_DIR` set to `denoDir`. */
function cleanEnv(denoDir: string): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([key]) => !key.startsWith("SEALPOST_")),
  );
  return { ...env, DENO_DIR: denoDir, SEALPOST_RATE_LIMITS_ENABLED: "false" };
}

/** Waits (bounded) until `probe` returns a value that is not undefined. */
async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

Deno.test("leftovers: npm imports and source-file references are found, other text is not", () => {
  const code = [
    'import { Hono } from "npm:hono@4.13.19";',
    'const z = await import("npm:zod@4");',
    'new Worker(new URL("./open_worker.ts", import.meta.url));',
    'const help = "run npm: later"; // npm:hono in a comment',
    'import { x } from "./x.js";',
  ].join("\n");
  assert.deepEqual(leftovers(code), ["npm:hono@4.13.19", "npm:zod@4", "./open_worker.ts"]);
  assert.deepEqual(leftovers("const a = 1;"), []);
});

Deno.test("the bundle serves, submits, lists records and delivers webhooks from an empty folder", async () => {
  const folder = await Deno.makeTempDir({ prefix: "sealpost-bundle-run-" });
  const denoDir = await Deno.makeTempDir({ prefix: "sealpost-deno-dir-" });
  const given = Deno.env.get("SEALPOST_BUNDLE");
  if (given) await Deno.copyFile(given, join(folder, "sealpost.js"));
  else await buildBundle(join(folder, "sealpost.js"));
  assert.deepEqual(leftovers(await Deno.readTextFile(join(folder, "sealpost.js"))), []);
  const options = { cwd: folder, clearEnv: true, env: cleanEnv(denoDir) };
  const base = ["run", "-A", "--unstable-kv", "sealpost.js"];

  /** Runs one command of the bundle to its end; asserts exit 0 and returns stdout. */
  const run = async (args: string[], stdin?: string) => {
    const child = new Deno.Command(Deno.execPath(), {
      ...options,
      args: [...base, ...args],
      stdin: stdin === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (stdin !== undefined) {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(stdin));
      await writer.close();
    }
    const out = await child.output();
    const stdout = decoder.decode(out.stdout);
    assert.equal(out.code, 0, `${args.join(" ")}:\n${stdout}${decoder.decode(out.stderr)}`);
    return stdout;
  };

  /** Starts `serve` on the folder's data dir; resolves once it answers /healthz. */
  const serve = async (...extra: string[]) => {
    const port = freePort();
    const child = new Deno.Command(Deno.execPath(), {
      ...options,
      args: [...base, "serve", "--data", "data", "--port", String(port), ...extra],
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const chunks: string[] = [];
    const reading = (async () => {
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        chunks.push(chunk);
      }
    })();
    const url = `http://127.0.0.1:${port}`;
    await waitFor(`${url}/healthz`);
    return {
      url,
      banner: () => chunks.join(""),
      stop: async () => {
        child.kill("SIGTERM");
        assert.equal((await child.status).code, 0);
        await reading;
      },
    };
  };

  const received: { body: Uint8Array; signature: string | null }[] = [];
  const receiver = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const body = new Uint8Array(await req.arrayBuffer());
      received.push({ body, signature: req.headers.get(WEBHOOK_SIGNATURE_HEADER) });
      return new Response(null, { status: 204 });
    },
  );
  // Owner commands: the token from the data dir's credentials.json, the instance by --url.
  const owner = (url: string) => ["--url", url, "--data", "data", "--json"];
  type Listed = { _recordId: string; values: Record<string, unknown> };
  const recordsOf = async (url: string, formId: string, count: number) =>
    await until(async () => {
      const listed: Listed[] = JSON.parse(
        await run(["records", "list", formId, "--limit", "100", ...owner(url)]),
      );
      return listed.length >= count ? listed : undefined;
    }, `${count} records`);
  try {
    const first = await serve();
    // The banner names the demo form and the manifest key to pin (printed once the vault is set).
    const [formId, pin] = await until(() => {
      const text = first.banner();
      const form = /demo form id:\s+(\S+)/.exec(text)?.[1];
      const key = /manifest key:\s+([0-9a-f]{64})/.exec(text)?.[1];
      return Promise.resolve(form && key ? [form, key] : undefined);
    }, "the demo form in the banner");
    // Its hints name the bundle, as run here (by a Deno of npx's when the tests run under npx).
    assert.match(
      first.banner(),
      /\| (npx -y deno@\S+|deno) run -A --unstable-kv sealpost\.js submit /,
    );

    const hook = `http://127.0.0.1:${receiver.addr.port}/hook`;
    const added = JSON.parse(
      await run([
        "webhook",
        "add",
        "--form",
        formId,
        hook,
        "--generate-secret",
        ...owner(first.url),
      ]),
    );
    const secret: string = added.generatedSigningSecret;
    assert.match(secret, /^whsec_/, JSON.stringify(added));

    const values = { name: "Ada", email: "ada@example.com", rating: 5 };
    const { submissionId } = JSON.parse(
      await run(
        ["submit", formId, "--relay", first.url, "--pin", pin, "--values", "-", "--json"],
        JSON.stringify(values),
      ),
    );
    const [record] = await recordsOf(first.url, formId, 1);
    assert.equal(record._recordId, submissionId);
    assert.deepEqual(
      Object.fromEntries(Object.keys(values).map((k) => [k, record.values[k]])),
      values,
    );
    await until(() => Promise.resolve(received.length === 1 || undefined), "the webhook");
    assert.ok(verifyWebhookSignature(received[0].body, received[0].signature, secret));
    const delivered = JSON.parse(decoder.decode(received[0].body));
    assert.equal(delivered._recordId, submissionId);
    assert.equal(delivered.name, "Ada");
    await first.stop();

    // A backlog: envelopes taken by the relay alone, opened by the vault on its next start.
    const relay = await serve("--role", "relay");
    const manifest = await fetchManifest(formId, { relayUrl: relay.url, pin });
    for (let i = 0; i < BACKLOG; i++) {
      const payload = buildPayload(manifest, { ...values, name: `Sender ${i}` });
      const envelope = buildEnvelope(manifest, await seal(payload, manifest.recipient.publicKey));
      const sent = await fetch(`${relay.url}/submissions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(envelope),
      });
      assert.equal(sent.status, 200, await sent.text());
    }
    await relay.stop();
    const again = await serve();
    const all = await recordsOf(again.url, formId, 1 + BACKLOG);
    assert.equal(all.length, 1 + BACKLOG);
    const names = new Set(all.map((r) => r.values.name));
    for (let i = 0; i < BACKLOG; i++) assert.ok(names.has(`Sender ${i}`), `Sender ${i}`);
    await until(
      () => Promise.resolve(received.length === 1 + BACKLOG || undefined),
      "the backlog's webhooks",
    );
    assert.ok(received.every((r) => verifyWebhookSignature(r.body, r.signature, secret)));
    await again.stop();

    // Nothing was fetched: the empty cache holds no npm package afterwards.
    const npm = await Array.fromAsync(Deno.readDir(join(denoDir, "npm"))).catch(() => []);
    assert.deepEqual(npm, []);
  } finally {
    await receiver.shutdown();
    await Deno.remove(folder, { recursive: true });
    await Deno.remove(denoDir, { recursive: true });
  }
});
