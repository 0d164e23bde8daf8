/**
 * A whole instance with `[server.tls]` certificate files, over real HTTPS: HSTS on its
 * responses, console cookies `Secure`, the https base URL by default, the days-left metric; and
 * the same instance without TLS sending neither HSTS nor `Secure`. Startup refusals name what
 * is wrong.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../../src/config/index.ts";
import { openEdge } from "../../src/net/edge.ts";
import { ListenError } from "../../src/server.ts";
import { issue, makeCa } from "../_support/certificates.ts";
import { startInstance } from "../_support/server.ts";

async function withCertificate(
  fn: (files: { cert: string; key: string; ca: string }) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-edge-" });
  try {
    const ca = await makeCa(dir, "ca");
    const leaf = await issue(dir, ca, "leaf", ["localhost", "127.0.0.1"]);
    await fn({ cert: leaf.certFile, key: leaf.keyFile, ca: ca.cert });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("TLS instance: HSTS, Secure cookies, an https base URL and the days-left metric", async () => {
  await withCertificate(async ({ cert, key, ca }) => {
    const inst = await startInstance({
      SEALPOST_SERVER_TLS_CERT_FILE: cert,
      SEALPOST_SERVER_TLS_KEY_FILE: key,
    });
    const client = Deno.createHttpClient({ caCerts: [ca] });
    try {
      const port = inst.server.port;
      assert.equal(inst.url, `https://127.0.0.1:${port}`);
      assert.equal(inst.server.baseUrl, `https://127.0.0.1:${port}`);
      const health = await fetch(`${inst.url}/healthz`, { client });
      assert.equal(health.status, 200);
      await health.body?.cancel();
      assert.equal(health.headers.get("strict-transport-security"), "max-age=31536000");
      // Errors carry it too.
      const missing = await fetch(`${inst.url}/no/such/route`, { client });
      assert.equal(missing.status, 404);
      assert.equal((await missing.json()).error.code, "not_found");
      assert.equal(missing.headers.get("strict-transport-security"), "max-age=31536000");
      const page = await fetch(`${inst.url}/console`, { client, headers: { accept: "text/html" } });
      await page.body?.cancel();
      const cookie = page.headers.getSetCookie()[0];
      assert.match(cookie, /; Secure/);
      assert.match(cookie, /HttpOnly/);
      const metrics = await (await fetch(`${inst.url}/metrics`, { client })).text();
      const days = Number(/^sealpost_tls_certificate_days_left (\S+)$/m.exec(metrics)?.[1]);
      assert.ok(days > 1 && days <= 2, `days left ${days} (the test certificate lives 2 days)`);
      // Plain HTTP on the https port gets no answer.
      await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`));
    } finally {
      client.close();
      await inst.close();
    }
  });
});

Deno.test("plain instance: no HSTS, no Secure cookie, an http base URL, no certificate metric", async () => {
  const inst = await startInstance();
  try {
    assert.match(inst.server.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    const page = await fetch(`${inst.url}/console`, { headers: { accept: "text/html" } });
    await page.body?.cancel();
    assert.equal(page.headers.get("strict-transport-security"), null);
    assert.doesNotMatch(page.headers.getSetCookie()[0], /Secure/);
    const metrics = await (await fetch(`${inst.url}/metrics`)).text();
    assert.doesNotMatch(metrics, /^sealpost_tls_certificate_days_left /m, "no sample");
  } finally {
    await inst.close();
  }
});

Deno.test("TLS startup: missing or mismatched files and a busy http_port are ListenErrors naming the cause", async () => {
  await withCertificate(async ({ cert, key }) => {
    const dir = await Deno.makeTempDir({ prefix: "sealpost-edge-" });
    const configured = (env: Record<string, string>) =>
      loadConfig({ env, flags: { data: dir, host: "127.0.0.1", port: 0 } });
    try {
      const missing = await configured({
        SEALPOST_SERVER_TLS_CERT_FILE: join(dir, "none.crt"),
        SEALPOST_SERVER_TLS_KEY_FILE: key,
      });
      await assert.rejects(
        openEdge(missing, () => new Response()),
        (err) => err instanceof ListenError && /Cannot serve https: .*none\.crt/.test(err.message),
      );
      const mismatched = await configured({
        SEALPOST_SERVER_TLS_CERT_FILE: cert,
        SEALPOST_SERVER_TLS_KEY_FILE: join(dir, "other.key"),
      });
      await Deno.writeTextFile(join(dir, "other.key"), await makeOtherKey(dir));
      await assert.rejects(
        openEdge(mismatched, () => new Response()),
        (err) =>
          err instanceof ListenError && /does not belong to the certificate/.test(err.message),
      );
      using busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const httpBusy = await configured({
        SEALPOST_SERVER_TLS_CERT_FILE: cert,
        SEALPOST_SERVER_TLS_KEY_FILE: key,
        SEALPOST_SERVER_HTTP_PORT: String(busy.addr.port),
      });
      await assert.rejects(
        openEdge(httpBusy, () => new Response()),
        (err) =>
          err instanceof ListenError && err.message.includes(`127.0.0.1:${busy.addr.port}`) &&
          /in use/.test(err.message),
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

/** A private key of another certificate. */
async function makeOtherKey(dir: string): Promise<string> {
  const other = await makeCa(dir, "other");
  return other.key;
}
