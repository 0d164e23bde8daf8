/**
 * The private-network guard over real sockets: every IPv6 form that embeds IPv4 is refused
 * before any connection, and a checked name is reached at the checked address without a
 * second DNS lookup (http through a TCP-transport client, https through startTls).
 */
import assert from "node:assert/strict";
import { isBlockedAddress } from "../../src/webhooks/guard.ts";
import { fetchPinned } from "../../src/webhooks/pinned.ts";
import { sendRequest } from "../../src/webhooks/send.ts";

/** Each form embeds 127.0.0.1 or 8.8.8.8 (refused either way). */
const EMBEDDING_FORMS = [
  "::ffff:127.0.0.1", // IPv4-mapped
  "::ffff:8.8.8.8",
  "::127.0.0.1", // IPv4-compatible
  "::8.8.8.8",
  "::ffff:0:7f00:1", // IPv4-translated
  "2002:7f00:1::1", // 6to4
  "2002:808:808::1",
  "2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo (client 127.0.0.1, obfuscated)
  "2001::1",
  "64:ff9b::7f00:1", // NAT64
  "64:ff9b::8.8.8.8",
  "64:ff9b:1::a00:1", // local-use NAT64
  "64:ff9b:1:ffff::8.8.8.8",
];

Deno.test("guard: every IPv6 form embedding IPv4 is refused", () => {
  for (const address of EMBEDDING_FORMS) assert.ok(isBlockedAddress(address), address);
  assert.ok(isBlockedAddress("192.88.99.1"), "6to4 relay anycast");
  assert.ok(!isBlockedAddress("2001:db8:85a3::8a2e:370:7334".replace("db8", "4860")));
});

Deno.test("guard: each form, resolved or literal, is refused before any connection", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  let accepted = 0;
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        accepted++;
        conn.close();
      }
    } catch { /* closed */ }
  })();
  try {
    for (const address of EMBEDDING_FORMS) {
      for (
        const url of [`http://hooks.invalid:${port}/x`, `http://[${address}]:${port}/x`]
      ) {
        const resolve = (_host: string, type: "A" | "AAAA") =>
          Promise.resolve(type === "AAAA" ? [address] : []);
        const result = await sendRequest(
          { method: "POST", url, headers: [], body: new Uint8Array() },
          { timeoutMs: 2000, blockPrivateNetworks: true, resolve },
        );
        assert.equal(result.outcome, "permanent", `${url} via ${address}`);
        assert.match(result.error!, /Refused: .* is not a public address/);
        assert.equal(result.status, null);
      }
    }
    assert.equal(accepted, 0, "no connection was made");
  } finally {
    listener.close();
    await accepting;
  }
});

Deno.test("pinned http: the checked address is dialled, the name kept in Host (no lookup)", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => new Response(`${req.method} ${req.headers.get("host")} ${await req.text()}`),
  );
  try {
    const { port } = server.addr;
    // hooks.invalid cannot resolve: a lookup would fail the request.
    const response = await fetchPinned(new URL(`http://hooks.invalid:${port}/p?q=1`), "127.0.0.1", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: new TextEncoder().encode("hi"),
      signal: AbortSignal.timeout(5000),
    });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), `POST hooks.invalid:${port} hi`);
  } finally {
    await server.shutdown();
  }
});

async function selfSignedCert(name: string): Promise<{ cert: string; key: string }> {
  const dir = await Deno.makeTempDir();
  try {
    const { success } = await new Deno.Command("openssl", {
      args: [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        `${dir}/k.pem`,
        "-out",
        `${dir}/c.pem`,
        "-days",
        "1",
        "-subj",
        `/CN=${name}`,
        "-addext",
        `subjectAltName=DNS:${name}`,
        "-addext",
        "basicConstraints=critical,CA:FALSE",
      ],
      stdout: "null",
      stderr: "null",
    }).output();
    assert.ok(success, "openssl");
    return {
      cert: await Deno.readTextFile(`${dir}/c.pem`),
      key: await Deno.readTextFile(`${dir}/k.pem`),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("pinned https: TLS to the checked address, certificate checked against the name", async () => {
  const { cert, key } = await selfSignedCert("hooks.test");
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert, key, onListen: () => {} },
    async (req) =>
      new Response(`${req.method} ${req.headers.get("host")} ${await req.text()}`, {
        headers: { "retry-after": "7" },
      }),
  );
  try {
    const { port } = server.addr;
    const init = {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: new TextEncoder().encode("sealed"),
      signal: AbortSignal.timeout(5000),
      caCerts: [cert],
    };
    const response = await fetchPinned(new URL(`https://hooks.test:${port}/w`), "127.0.0.1", init);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("retry-after"), "7");
    assert.equal(await response.text(), `POST hooks.test:${port} sealed`);
    // The same address under another name: the certificate does not match, refused.
    await assert.rejects(() =>
      fetchPinned(new URL(`https://other.test:${port}/w`), "127.0.0.1", {
        ...init,
        signal: AbortSignal.timeout(5000),
      })
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("sendRequest with the guard on resolves once and dials the checked address", async () => {
  const lookups: string[] = [];
  const resolve = (host: string, type: "A" | "AAAA") => {
    lookups.push(`${host} ${type}`);
    // 192.0.2.1 (TEST-NET-1) is public to the guard and unreachable from here.
    return Promise.resolve(type === "A" ? ["192.0.2.1"] : []);
  };
  const result = await sendRequest(
    { method: "POST", url: "http://hooks.invalid/x", headers: [], body: new Uint8Array() },
    { timeoutMs: 500, blockPrivateNetworks: true, resolve },
  );
  assert.deepEqual(lookups.sort(), ["hooks.invalid A", "hooks.invalid AAAA"]);
  assert.equal(result.outcome, "transient");
  // Not a DNS failure of the name (it does not resolve): the connection went to 192.0.2.1.
  assert.doesNotMatch(result.error!, /lookup|dns|resolve|Name or service/i);
});
