/**
 * ACME against Debian's pebble (tests/_support/services/pebble.ts), with a real Sealpost
 * server: a certificate issued over HTTP-01 and served over https (verified with pebble's root),
 * kept 0600 in the data dir and used again at the next start, a forced renewal swapped in live,
 * the plain-HTTP port answering challenges and redirecting the rest, the days-left metric.
 */
import assert from "node:assert/strict";
import tls from "node:tls";
import { AcmeCertificates, acmePaths } from "../../src/net/acme.ts";
import { servedFingerprint } from "../_support/certificates.ts";
import { type PebbleEnv, pebbleRoots, pebbleUp } from "../_support/services/pebble.ts";
import { startInstance, type TestInstance } from "../_support/server.ts";
import { sleep } from "./_raw.ts";

const DOMAINS = ["sealpost.test", "www.sealpost.test"];

function acmeEnv(pebble: PebbleEnv): Record<string, string> {
  return {
    // A connection held across a renewal (up to ~10 s when pebble validates anew) stays open.
    SEALPOST_SERVER_KEEPALIVE_TIMEOUT_SECONDS: "120",
    SEALPOST_SERVER_HTTP_PORT: String(pebble.httpPort),
    SEALPOST_SERVER_TLS_ACME_ENABLED: "true",
    SEALPOST_SERVER_TLS_ACME_DOMAINS: DOMAINS.join(","),
    SEALPOST_SERVER_TLS_ACME_EMAIL: "ops@sealpost.test",
    SEALPOST_SERVER_TLS_ACME_DIRECTORY_URL: pebble.directoryUrl,
    SEALPOST_SERVER_TLS_ACME_CA_FILE: pebble.caFile,
  };
}

/** Waits (bounded) for the instance's first certificate. */
async function firstCertificate(inst: TestInstance) {
  const end = Date.now() + 60_000;
  while (!inst.server.edge.certificate()) {
    if (Date.now() > end) throw new Error("no certificate from pebble within 60 s");
    await sleep(100);
  }
  return inst.server.edge.certificate()!;
}

/** An open TLS connection to loopback `port` for `servername`, verified against `ca`. */
async function tlsConnect(port: number, servername: string, ca: string[]) {
  const socket = tls.connect({ host: "127.0.0.1", port, servername, ca });
  await new Promise((resolve, reject) => {
    socket.once("secureConnect", resolve);
    socket.once("error", reject);
  });
  return socket;
}

/** One HTTP/1.1 GET on an open socket: status line, headers and body text. */
async function get(socket: tls.TLSSocket, host: string, path: string, close = false) {
  socket.write(
    `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${close ? "Connection: close\r\n" : ""}\r\n`,
  );
  let text = "";
  for (;;) {
    const chunk = await new Promise<string | null>((resolve, reject) => {
      const onData = (d: Uint8Array) => done(new TextDecoder().decode(d));
      const onEnd = () => done(null);
      const done = (v: string | null) => {
        socket.off("data", onData).off("end", onEnd).off("error", reject);
        resolve(v);
      };
      socket.on("data", onData).once("end", onEnd).once("error", reject);
    });
    if (chunk === null) break;
    text += chunk;
    const end = text.indexOf("\r\n\r\n");
    const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? -1);
    if (end >= 0 && length >= 0 && text.length >= end + 4 + length) break;
  }
  const [head, body] = [text.slice(0, text.indexOf("\r\n\r\n")), text.split("\r\n\r\n")[1]];
  return { status: Number(head.split(" ")[1]), head, body };
}

Deno.test("ACME (pebble): issued over HTTP-01, served over https, renewed live, kept for the next start", async () => {
  const pebble = await pebbleUp();
  const [root] = await pebbleRoots(pebble);
  const dataDir = await Deno.makeTempDir({ prefix: "sealpost-acme-" });
  let inst = await startInstance(acmeEnv(pebble), dataDir);
  try {
    const first = await firstCertificate(inst);
    const port = inst.server.port;
    assert.deepEqual(first.domains.sort(), [...DOMAINS].sort());
    assert.equal(inst.server.baseUrl, `https://sealpost.test:${port}`);
    // Served over https, the chain verified against pebble's root, for both names.
    for (const name of DOMAINS) {
      assert.equal(await servedFingerprint(port, root, name), first.fingerprint);
    }
    const held = await tlsConnect(port, "sealpost.test", [root]);
    const health = await get(held, "sealpost.test", "/healthz");
    assert.equal(health.status, 200);
    assert.match(health.head, /strict-transport-security: max-age=31536000/i);
    // Kept 0600 in <data_dir>/tls/.
    const paths = acmePaths(dataDir);
    for (const file of [paths.accountKey, paths.cert, paths.key, paths.order]) {
      assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600, file);
    }
    assert.equal(await Deno.readTextFile(paths.cert), first.cert);
    // The days-left metric (pebble's certificates live 5 years).
    const metrics = await get(held, "sealpost.test", "/metrics");
    const days = Number(/^sealpost_tls_certificate_days_left (\S+)$/m.exec(metrics.body)?.[1]);
    assert.ok(days > 1800 && days < 1830, `days left ${days}`);

    // A forced renewal: the new certificate goes to new handshakes; the connection held on
    // the old one keeps working.
    const renewed = await inst.server.edge.acme!.renew();
    assert.notEqual(renewed.fingerprint, first.fingerprint);
    assert.equal(await servedFingerprint(port, root, "sealpost.test"), renewed.fingerprint);
    assert.equal(held.getPeerX509Certificate()!.fingerprint256, first.fingerprint);
    assert.equal((await get(held, "sealpost.test", "/healthz", true)).status, 200);
    held.destroy();
    assert.equal(await Deno.readTextFile(paths.cert), renewed.cert);

    // The next start uses the kept certificate at once (no order: pebble would issue another).
    await inst.close();
    inst = await startInstance(acmeEnv(pebble), dataDir);
    assert.equal(inst.server.edge.certificate()?.fingerprint, renewed.fingerprint);
  } finally {
    await inst.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("ACME (pebble): the plain-HTTP port answers challenges and redirects everything else to https", async () => {
  const pebble = await pebbleUp();
  const inst = await startInstance(acmeEnv(pebble));
  try {
    await firstCertificate(inst);
    const plain = `http://127.0.0.1:${pebble.httpPort}`;
    const acme = inst.server.edge.acme!;
    acme.challenges.set("token-1", "token-1.thumbprint");
    const answer = await fetch(`${plain}/.well-known/acme-challenge/token-1`);
    assert.equal(answer.status, 200);
    assert.equal(await answer.text(), "token-1.thumbprint");
    const unknown = await fetch(`${plain}/.well-known/acme-challenge/nope`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(await unknown.json(), {
      error: { code: "not_found", message: "No such ACME challenge" },
    });
    for (const method of ["GET", "POST"]) {
      const moved = await fetch(`${plain}/forms/abc/manifest?x=1`, { method, redirect: "manual" });
      await moved.body?.cancel();
      assert.equal(moved.status, 308);
      assert.equal(
        moved.headers.get("location"),
        `https://sealpost.test:${inst.server.port}/forms/abc/manifest?x=1`,
      );
      assert.equal(moved.headers.get("strict-transport-security"), null, "never over http");
    }
  } finally {
    await inst.close();
  }
});

Deno.test("ACME: a CA that refuses is asked again after 5 minutes, the failure logged; no certificate yet", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "sealpost-acme-" });
  // A directory that answers with an ACME problem (not retried by acme-client itself).
  let asked = 0;
  const refusing = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    asked++;
    return Response.json(
      { type: "urn:ietf:params:acme:error:unauthorized", detail: "No" },
      { status: 403, headers: { "content-type": "application/problem+json" } },
    );
  });
  const directoryUrl = `http://127.0.0.1:${refusing.addr.port}/dir`;
  const logs: string[] = [];
  const used: unknown[] = [];
  const acme = new AcmeCertificates(
    { domains: ["sealpost.test"], email: "", directoryUrl, caFile: "" },
    dataDir,
    (c) => used.push(c),
    (line) => logs.push(line),
  );
  try {
    await acme.start();
    const end = Date.now() + 10_000;
    while (logs.length === 0 && Date.now() < end) await sleep(50);
    const line = JSON.parse(logs[0]);
    assert.equal(line.level, "error");
    assert.equal(line.failures, 1);
    assert.equal(line.retry_in_seconds, 300);
    assert.deepEqual(line.domains, ["sealpost.test"]);
    assert.equal(acme.current, null);
    assert.deepEqual(used, []);
    assert.ok(asked >= 1);
    // The account key was made and kept 0600 before the CA was asked.
    const key = acmePaths(dataDir).accountKey;
    assert.equal((await Deno.stat(key)).mode! & 0o777, 0o600);
  } finally {
    acme.close();
    await refusing.shutdown();
    await Deno.remove(dataDir, { recursive: true });
  }
});
