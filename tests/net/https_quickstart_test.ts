/**
 * The README's quickstart over https (issue 26): `serve` with `[server.tls]` certificate files
 * signed by a private CA, its banner's "try it" and "then" lines run as printed (Deno trusting
 * the CA through `DENO_CERT`), step 4's signed webhook to the example receiver and its
 * deliveries, and the README's curl lines with `curl --cacert`.
 */
import assert from "node:assert/strict";
import { freePort } from "../_support/process.ts";
import { issue, makeCa } from "../_support/certificates.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const RECEIVER = new URL("../../docs/examples/receiver.ts", import.meta.url).pathname;

async function sh(command: string, cwd: string, env: Record<string, string>) {
  const out = await new Deno.Command("bash", {
    args: ["-c", command],
    cwd,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

Deno.test("quickstart over https: the banner's commands as printed, curl --cacert", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-https-" });
  const ca = await makeCa(dir, "ca");
  const leaf = await issue(dir, ca, "leaf", ["localhost", "127.0.0.1"]);
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "serve", "--data", "./data", "--port", String(port)],
    cwd: dir,
    env: {
      SEALPOST_SERVER_TLS_CERT_FILE: leaf.certFile,
      SEALPOST_SERVER_TLS_KEY_FILE: leaf.keyFile,
      SEALPOST_RATE_LIMITS_ENABLED: "false",
    },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    // The banner, up to its console line.
    let text = "";
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    while (!/^\s+console:.*$/m.test(text)) {
      const step = await reader.read();
      if (step.done) break;
      text += step.value;
    }
    // Keep draining what follows (the request log), or the server would block on a full pipe.
    (async () => {
      while (!(await reader.read().catch(() => ({ done: true }))).done) { /* dropped */ }
    })();
    const banner = text.split("\n");
    const field = (name: string) =>
      banner.find((l) => l.trimStart().startsWith(`${name}:`))!.replace(/^\s*[a-z ]+:\s+/, "");
    const url = `https://127.0.0.1:${port}`;
    assert.ok(banner.some((l) => l.includes(`listens on ${url}`)), banner.join("\n"));
    assert.match(field("open the form"), new RegExp(`^${url}/f/`));
    const env = { DENO_CERT: ca.certFile, PATH: Deno.env.get("PATH") ?? "" };
    // The program as the banner names it (the part of the "then" line before the command).
    const program = field("then").replace(/ records list .*$/, "");

    const tryIt = await sh(field("try it"), dir, env);
    assert.equal(tryIt.code, 0, tryIt.stderr);
    const submissionId = /[0-9a-f]{32}/.exec(tryIt.stdout)?.[0];
    assert.ok(submissionId, tryIt.stdout);
    // The vault ingests in the background: the record appears within a few seconds.
    let records = "";
    for (let i = 0; i < 50 && !records.includes("Ada"); i++) {
      const then = await sh(field("then"), dir, env);
      assert.equal(then.code, 0, then.stderr);
      records = then.stdout;
      if (!records.includes("Ada")) await new Promise((r) => setTimeout(r, 200));
    }
    assert.match(records, /Ada/);

    // Step 4: a signed webhook to the example receiver, added and inspected over https.
    const formId = field("demo form id");
    const receiverPort = freePort();
    const hookUrl = `http://127.0.0.1:${receiverPort}/hook`;
    const added = await sh(
      `${program} webhook add --form ${formId} ${hookUrl} --generate-secret --json`,
      dir,
      env,
    );
    assert.equal(added.code, 0, added.stderr);
    const hook = JSON.parse(added.stdout);
    const secret: string = hook.generatedSigningSecret;
    assert.match(secret, /^whsec_/, added.stdout);
    const receiver = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", RECEIVER, String(receiverPort)],
      env: { WEBHOOK_SECRET: secret },
      stdout: "piped",
      stderr: "null",
    }).spawn();
    try {
      const heard = receiver.stdout.pipeThrough(new TextDecoderStream()).getReader();
      await new Promise((r) => setTimeout(r, 500)); // the receiver listens
      const again = await sh(field("try it"), dir, env);
      assert.equal(again.code, 0, again.stderr);
      let printed = "";
      const until = Date.now() + 20_000;
      while (!printed.includes("Ada") && Date.now() < until) {
        const step = await Promise.race([
          heard.read(),
          new Promise<{ done: true }>((r) => setTimeout(() => r({ done: true }), 1000)),
        ]);
        if (!step.done && step.value) printed += step.value;
      }
      assert.match(printed, /Ada/, "the receiver verified and printed the record");
      const deliveries = await sh(
        `${program} deliveries list --webhook ${hook.id}`,
        dir,
        env,
      );
      assert.equal(deliveries.code, 0, deliveries.stderr);
      assert.match(deliveries.stdout, /delivered|succeeded|200/i);
    } finally {
      receiver.kill("SIGTERM");
      await receiver.status;
    }

    // The README's curl lines, and the form page and console, with curl --cacert.
    const token = JSON.parse(await Deno.readTextFile(`${dir}/data/credentials.json`)).ownerToken;
    const curl = (path: string, extra = "") =>
      sh(`curl -sS --fail-with-body --cacert ${ca.certFile} ${extra} '${url}${path}'`, dir, env);
    const me = await curl("/owner/me", `-H "Authorization: Bearer ${token}"`);
    assert.equal(me.code, 0, me.stderr);
    assert.match(me.stdout, /"userId":"[^"]+"/);
    const openapi = await curl("/openapi.json");
    assert.equal(JSON.parse(openapi.stdout).openapi, "3.1.0");
    const page = await curl(new URL(field("open the form")).pathname, "-i");
    assert.match(page.stdout, /^HTTP\/1\.1 200 /);
    assert.match(page.stdout, /strict-transport-security: max-age=31536000/i);
    const consolePage = await curl("/console", "-i -H 'Accept: text/html'");
    assert.match(consolePage.stdout, /set-cookie: [^\r\n]*; Secure/i);
    // Without the CA, curl refuses the certificate.
    const untrusted = await sh(`curl -sS '${url}/healthz'`, dir, env);
    assert.notEqual(untrusted.code, 0);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
});
