/**
 * The README's quickstart over https (issue 26): `serve` with `[server.tls]` certificate files
 * signed by a private CA, its banner's "try it" and "then" lines run as printed (Deno trusting
 * the CA through `DENO_CERT`), and the README's curl lines with `curl --cacert`.
 */
import assert from "node:assert/strict";
import { freePort } from "../_support/process.ts";
import { issue, makeCa } from "../_support/certificates.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

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
    const console = await curl("/console", "-i -H 'Accept: text/html'");
    assert.match(console.stdout, /set-cookie: [^\r\n]*; Secure/i);
    // Without the CA, curl refuses the certificate.
    const untrusted = await sh(`curl -sS '${url}/healthz'`, dir, env);
    assert.notEqual(untrusted.code, 0);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
});
