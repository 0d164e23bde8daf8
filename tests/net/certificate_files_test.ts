/**
 * Certificate files over real HTTPS: swapped under load with no failed request (the new one
 * served after), a pair that does not belong together refused with the old one kept, and
 * SIGHUP to a `sealpost serve` process.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CertificateFiles } from "../../src/net/certificate_files.ts";
import { serveHttp } from "../../src/net/listener.ts";
import { TlsListener } from "../../src/net/tls_listener.ts";
import { issue, makeCa, servedFingerprint, type TestPem } from "../_support/certificates.ts";
import { freePort } from "../_support/process.ts";
import { sleep, testLimits } from "./_raw.ts";

/** Two CAs, a leaf of each for localhost, and the files the server reads (leaf A at first). */
async function fixture(dir: string) {
  const [caA, caB] = [await makeCa(dir, "ca-a"), await makeCa(dir, "ca-b")];
  const a = await issue(dir, caA, "a", ["localhost"]);
  const b = await issue(dir, caB, "b", ["localhost"]);
  const files = { cert: join(dir, "server.crt"), key: join(dir, "server.key") };
  await Deno.writeTextFile(files.cert, a.cert);
  await Deno.writeTextFile(files.key, a.key);
  return { caA, caB, a, b, files };
}

/** Overwrites the served files in place (as `cp` does), chain first. */
async function install(files: { cert: string; key: string }, pem: TestPem) {
  await Deno.writeTextFile(files.cert, pem.cert);
  await Deno.writeTextFile(files.key, pem.key);
}

/** True once `fetch` through `client` succeeds (the certificate it trusts is served). */
async function trusted(client: Deno.HttpClient, url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { client, headers: { connection: "close" } });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

async function eventually(what: string, check: () => Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`${what} within ${ms} ms`);
}

Deno.test("certificate files: swapped under load, no request fails and the new certificate is served", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-certs-" });
  const { caA, caB, b, files } = await fixture(dir);
  const listener = TlsListener.listen({ hostname: "127.0.0.1", port: 0 });
  const logs: string[] = [];
  const watched = await CertificateFiles.open(files, (c) => listener.use(c), (l) => logs.push(l));
  const server = serveHttp(
    listener,
    testLimits({ maxConnections: 1024, maxConnectionsPerAddress: 1024 }),
    async () => {
      await sleep(5); // an exchange in progress during the swap
      return new Response("ok");
    },
    () => {},
  );
  const port = listener.addr.port;
  const url = `https://localhost:${port}/`;
  const both = Deno.createHttpClient({ caCerts: [caA.cert, caB.cert] });
  const onlyB = Deno.createHttpClient({ caCerts: [caB.cert] });
  try {
    assert.equal(await trusted(onlyB, url), false, "certificate A at first");
    // Load: 24 workers, each a new connection (a new handshake) per request, another 8 on
    // kept-alive connections, from 50 requests before the swap to 100 after the new
    // certificate is seen.
    let stop = false;
    let ok = 0;
    const failures: string[] = [];
    const worker = (close: boolean) => async () => {
      while (!stop) {
        try {
          const response = await fetch(url, {
            client: both,
            headers: close ? { connection: "close" } : {},
          });
          assert.equal(await response.text(), "ok");
          ok++;
        } catch (err) {
          failures.push((err as Error).message);
        }
      }
    };
    const load = Promise.all([
      ...Array.from({ length: 24 }, worker(true)),
      ...Array.from({ length: 8 }, worker(false)),
    ]);
    await eventually("50 requests under way", () => Promise.resolve(ok >= 50), 30_000);
    await install(files, b);
    await eventually("certificate B served", () => trusted(onlyB, url));
    const seen = ok;
    await eventually("100 requests after", () => Promise.resolve(ok >= seen + 100), 30_000);
    stop = true;
    await load;
    assert.deepEqual(failures, [], `${failures.length} of ${ok + failures.length} failed`);
    assert.equal(await servedFingerprint(port, caB.cert, "localhost"), b.fingerprint);
    assert.equal(listener.certificate!.fingerprint, b.fingerprint);
    assert.ok(logs.some((l) => /"msg":"TLS certificate reloaded","reason":"file change"/.test(l)));
    assert.ok(logs.every((l) => !l.includes("PRIVATE KEY")), "no key in the logs");
  } finally {
    both.close();
    onlyB.close();
    watched.close();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("certificate files: a key that does not belong to the chain is refused, the served one stays", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-certs-" });
  const { a, b, files } = await fixture(dir);
  const listener = TlsListener.listen({ hostname: "127.0.0.1", port: 0 });
  const logs: string[] = [];
  const watched = await CertificateFiles.open(files, (c) => listener.use(c), (l) => logs.push(l));
  try {
    const first = listener.certificate!.fingerprint;
    await Deno.writeTextFile(files.key, b.key); // chain A, key B
    assert.equal(await watched.reload("test"), false);
    assert.equal(listener.certificate!.fingerprint, first);
    const line = JSON.parse(logs.find((l) => l.includes("not reloaded"))!);
    assert.equal(line.level, "error");
    assert.match(line.error, /the private key does not belong to the certificate/);
    await install(files, a);
    assert.equal(await watched.reload("test"), false, "unchanged: nothing to swap");
    // At start, a bad pair is an error (the server does not start).
    await Deno.writeTextFile(files.key, b.key);
    await assert.rejects(CertificateFiles.open(files, () => {}, () => {}), /does not belong/);
  } finally {
    watched.close();
    listener.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("certificate files: SIGHUP makes a running `sealpost serve` read them again", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-certs-" });
  const { caA, caB, b, files } = await fixture(dir);
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../../main.ts", import.meta.url).pathname, "serve"],
    env: {
      SEALPOST_DATA_DIR: join(dir, "data"),
      SEALPOST_SERVER_PORT: String(port),
      SEALPOST_SERVER_REQUEST_LOG: "false",
      SEALPOST_SERVER_TLS_CERT_FILE: files.cert,
      SEALPOST_SERVER_TLS_KEY_FILE: files.key,
    },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const reading = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (text) => void (stderr += text) }),
  );
  const url = `https://localhost:${port}/healthz`;
  const onlyA = Deno.createHttpClient({ caCerts: [caA.cert] });
  const onlyB = Deno.createHttpClient({ caCerts: [caB.cert] });
  try {
    await eventually("serve answering over https", () => trusted(onlyA, url), 60_000);
    await install(files, b);
    child.kill("SIGHUP");
    await eventually("certificate B served", () => trusted(onlyB, url));
    await eventually(
      "the SIGHUP reload logged",
      () => Promise.resolve(stderr.includes('"reason":"SIGHUP"')),
    );
    // A new client (a session of the old certificate may be resumed by the old one).
    const freshA = Deno.createHttpClient({ caCerts: [caA.cert] });
    assert.equal(await trusted(freshA, url), false, "certificate A no longer served");
    freshA.close();
    assert.equal(await servedFingerprint(port, caB.cert, "localhost"), b.fingerprint);
  } finally {
    onlyA.close();
    onlyB.close();
    child.kill("SIGTERM");
    await child.status;
    await reading;
    await Deno.remove(dir, { recursive: true });
  }
});
