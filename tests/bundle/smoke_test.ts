/**
 * The single-file build (`deno task bundle`, scripts/bundle.ts), run as an operator would: the
 * file alone in an empty folder, an empty Deno cache, `deno run -A --unstable-kv sealpost.js`.
 * It serves, takes a submission from its own `submit`, opens it on its embedded worker into a
 * record that its `records list` shows, and delivers a signed webhook to a loopback receiver.
 *
 * `SEALPOST_BUNDLE=dist/sealpost.js` tests that file (CI builds it first); otherwise the test
 * builds one into a temporary folder.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildBundle, leftovers } from "../../scripts/bundle.ts";
import { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER } from "../../src/sdk/mod.ts";
import { freePort, waitFor } from "../_support/process.ts";

const decoder = new TextDecoder();

/** The caller's environment without `SEALPOST_*`, with `DENO_DIR` set to `denoDir`. */
function cleanEnv(denoDir: string): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([key]) => !key.startsWith("SEALPOST_")),
  );
  return { ...env, DENO_DIR: denoDir, SEALPOST_RATE_LIMITS_ENABLED: "false" };
}

Deno.test("the bundle serves, submits, lists records and delivers a webhook from an empty folder", async () => {
  const folder = await Deno.makeTempDir({ prefix: "sealpost-bundle-run-" });
  const denoDir = await Deno.makeTempDir({ prefix: "sealpost-deno-dir-" });
  const given = Deno.env.get("SEALPOST_BUNDLE");
  if (given) await Deno.copyFile(given, join(folder, "sealpost.js"));
  else await buildBundle(join(folder, "sealpost.js"));
  assert.deepEqual(leftovers(await Deno.readTextFile(join(folder, "sealpost.js"))), []);
  const env = cleanEnv(denoDir);
  const base = ["run", "-A", "--unstable-kv", "sealpost.js"];
  const run = async (args: string[], stdin?: string) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: [...base, ...args],
      cwd: folder,
      clearEnv: true,
      env,
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
    assert.equal(
      out.code,
      0,
      `sealpost ${args.join(" ")}:\n${stdout}${decoder.decode(out.stderr)}`,
    );
    return stdout;
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
  const port = freePort();
  const server = new Deno.Command(Deno.execPath(), {
    args: [...base, "serve", "--data", "data", "--port", String(port)],
    cwd: folder,
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const banner: string[] = [];
  const reading = (async () => {
    for await (const chunk of server.stdout.pipeThrough(new TextDecoderStream())) {
      banner.push(chunk);
    }
  })();
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitFor(`${url}/healthz`);
    // The banner names the demo form and the manifest key to pin (printed once the vault is set).
    let formId: string | undefined;
    let pin: string | undefined;
    for (let i = 0; i < 200 && !(formId && pin); i++) {
      await new Promise((r) => setTimeout(r, 50));
      formId = /demo form id:\s+(\S+)/.exec(banner.join(""))?.[1];
      pin = /manifest key:\s+([0-9a-f]{64})/.exec(banner.join(""))?.[1];
    }
    assert.ok(formId && pin, banner.join(""));

    // Owner commands find the instance and token in the data dir's credentials.json.
    const owner = ["--data", "data", "--json"];
    const hook = `http://127.0.0.1:${receiver.addr.port}/hook`;
    const added = JSON.parse(
      await run(["webhook", "add", "--form", formId, hook, "--generate-secret", ...owner]),
    );
    const secret: string = added.generatedSigningSecret;
    assert.match(secret, /^whsec_/, JSON.stringify(added));

    const values = { name: "Ada", email: "ada@example.com", rating: 5 };
    const { submissionId } = JSON.parse(
      await run(
        ["submit", formId, "--relay", url, "--pin", pin, "--values", "-", "--json"],
        JSON.stringify(values),
      ),
    );
    assert.match(submissionId, /\S/);

    let records: { _recordId: string; values: Record<string, unknown> }[] = [];
    for (let i = 0; i < 100 && records.length === 0; i++) {
      records = JSON.parse(await run(["records", "list", formId, ...owner]));
      if (records.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(records.length, 1);
    assert.equal(records[0]._recordId, submissionId);
    assert.deepEqual(
      Object.fromEntries(Object.keys(values).map((k) => [k, records[0].values[k]])),
      values,
    );

    for (let i = 0; i < 100 && received.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(received.length, 1);
    assert.ok(verifyWebhookSignature(received[0].body, received[0].signature, secret));
    const delivered = JSON.parse(decoder.decode(received[0].body));
    assert.equal(delivered._recordId, submissionId);
    assert.equal(delivered.name, "Ada");
  } finally {
    server.kill("SIGTERM");
    await server.status;
    await reading;
    await receiver.shutdown();
    await Deno.remove(folder, { recursive: true });
    await Deno.remove(denoDir, { recursive: true });
  }
});
