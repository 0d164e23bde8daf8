/**
 * HTTPS on src/net over real TCP: TlsListener through serveHttp (requests are `https:` URLs,
 * keep-alive, bodies both ways), the handshake timed by the header timeout, and connections
 * before any certificate closed at once.
 */
import assert from "node:assert/strict";
import { parseCertificate } from "../../src/net/certificate.ts";
import { type HttpServer, serveHttp } from "../../src/net/listener.ts";
import { TlsListener } from "../../src/net/tls_listener.ts";
import { issue, makeCa, type TestPem } from "../_support/certificates.ts";
import { connect, readUntilClosed, send, sleep, testLimits } from "./_raw.ts";

/** Echo app: method, URL, body size; /big streams 500 kB. */
async function echo(request: Request) {
  const url = new URL(request.url);
  if (url.pathname === "/big") return new Response(new Uint8Array(500_000).fill(97));
  const body = new Uint8Array(await request.arrayBuffer());
  return Response.json({ method: request.method, url: request.url, bytes: body.byteLength });
}

async function withTls(
  fn: (ctx: { server: HttpServer; listener: TlsListener; port: number; ca: TestPem }) => Promise<
    void
  >,
  options: { certificate?: boolean } = {},
) {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-tls-" });
  const ca = await makeCa(dir, "ca");
  const leaf = await issue(dir, ca, "leaf", ["localhost", "127.0.0.1"]);
  const listener = TlsListener.listen({ hostname: "127.0.0.1", port: 0 });
  if (options.certificate !== false) listener.use(parseCertificate(leaf.cert, leaf.key, "leaf"));
  const server = serveHttp(listener, testLimits(), echo, () => {});
  try {
    await fn({ server, listener, port: listener.addr.port, ca });
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("TLS listener: HTTPS through serveHttp, https: URLs, keep-alive, bodies both ways", async () => {
  await withTls(async ({ port, ca }) => {
    const client = Deno.createHttpClient({ caCerts: [ca.cert] });
    try {
      const base = `https://localhost:${port}`;
      const got = await (await fetch(`${base}/a?x=1`, { client })).json();
      assert.deepEqual(got, { method: "GET", url: `${base}/a?x=1`, bytes: 0 });
      const posted = await fetch(`${base}/p`, {
        client,
        method: "POST",
        body: new Uint8Array(300_000),
      });
      assert.equal((await posted.json()).bytes, 300_000);
      const big = await fetch(`${base}/big`, { client });
      assert.equal((await big.arrayBuffer()).byteLength, 500_000);
      // Many requests over the client's kept-alive connections.
      const many = await Promise.all(
        Array.from({ length: 50 }, async () => (await fetch(`${base}/k`, { client })).json()),
      );
      assert.ok(many.every((r) => r.url === `${base}/k`));
    } finally {
      client.close();
    }
  });
});

Deno.test("TLS listener: a handshake never finished is cut within the header timeout while /healthz answers", async () => {
  await withTls(async ({ port, ca, server }) => {
    const client = Deno.createHttpClient({ caCerts: [ca.cert] });
    try {
      // One client connects and sends nothing; another sends the start of a ClientHello (a TLS
      // record header announcing 512 bytes, then 5 of them) and stalls.
      const silent = await connect(port);
      const partial = await connect(port);
      await send(
        partial,
        new Uint8Array([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 3]),
      );
      const cut = Promise.all([readUntilClosed(silent, 5000), readUntilClosed(partial, 5000)]);
      await sleep(300);
      // Meanwhile another connection is served.
      const health = await fetch(`https://localhost:${port}/healthz`, {
        client,
        headers: { connection: "close" },
      });
      assert.equal(health.status, 200);
      assert.equal((await health.json()).url, `https://localhost:${port}/healthz`);
      for (const { closedByServer, ms, text } of await cut) {
        assert.ok(closedByServer, "the server closed the connection");
        // Header timeout 1000 ms in testLimits, checked every 250 ms.
        assert.ok(ms >= 900 && ms < 2500, `cut after ${ms} ms`);
        assert.doesNotMatch(text, /HTTP\/1\.1/, "no HTTP answer on a connection without TLS");
      }
      await sleep(100);
      assert.equal(server.connections, 0, "every connection counted and released");
    } finally {
      client.close();
    }
  });
});

Deno.test("TLS listener: before any certificate a connection is closed at once; served once one is set", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-tls-" });
  await withTls(async ({ listener, port, ca }) => {
    const client = Deno.createHttpClient({ caCerts: [ca.cert] });
    try {
      const started = performance.now();
      await assert.rejects(fetch(`https://localhost:${port}/`, { client }));
      assert.ok(performance.now() - started < 900, "refused before the header timeout");
      const leaf = await issue(dir, ca, "late", ["localhost"]);
      listener.use(parseCertificate(leaf.cert, leaf.key, "late"));
      assert.equal(listener.certificate?.domains[0], "localhost");
      const ok = await fetch(`https://localhost:${port}/`, { client });
      assert.equal(ok.status, 200);
      await ok.body?.cancel();
    } finally {
      client.close();
      await Deno.remove(dir, { recursive: true });
    }
  }, { certificate: false });
});
