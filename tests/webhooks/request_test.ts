import assert from "node:assert/strict";
import { hmacSha256Hex } from "../../src/crypto/hmac.ts";
import { verifyWebhookSignature } from "../../src/sdk/mod.ts";
import type { WebhookConfig } from "../../src/store/ports/webhooks.ts";
import {
  buildRequest,
  generateSigningSecret,
  sendRequest,
  signBody,
  standardSignature,
} from "../../src/webhooks/index.ts";
import { PYTHON } from "../_support/python.ts";

const SETTINGS: Pick<
  WebhookConfig,
  "url" | "method" | "bearer" | "headers" | "signingSecret" | "signatureHeader" | "standardWebhooks"
> = {
  url: "http://127.0.0.1:9/hook",
  method: "POST",
  bearer: null,
  headers: [],
  signingSecret: null,
  signatureHeader: "X-Service-Signature",
  standardWebhooks: false,
};

const body = new TextEncoder().encode('{"_recordId":"r1","name":"Zoë ✓"}');
const outbound = { id: "d1", body, contentType: "application/json; charset=utf-8" };

/** One raw HTTP/1.1 request as it arrived on the socket: header lines in order, body bytes. */
interface RawRequest {
  requestLine: string;
  headers: [string, string][];
  body: Uint8Array;
}

/** A socket-level receiver: sees headers in wire order, answers 200. */
async function captureOne(send: (url: string) => Promise<unknown>): Promise<RawRequest> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/hook`;
  const received = (async () => {
    const conn = await listener.accept();
    let data = new Uint8Array(0);
    const buf = new Uint8Array(65536);
    let head = -1;
    let length = 0;
    while (true) {
      const n = await conn.read(buf);
      if (n === null) break;
      const merged = new Uint8Array(data.length + n);
      merged.set(data);
      merged.set(buf.subarray(0, n), data.length);
      data = merged;
      const text = new TextDecoder("latin1").decode(data);
      head = text.indexOf("\r\n\r\n");
      if (head >= 0) {
        length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(text)?.[1] ?? 0);
        if (data.length >= head + 4 + length) break;
      }
    }
    await conn.write(
      new TextEncoder().encode(
        "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok",
      ),
    );
    conn.close();
    const lines = new TextDecoder("latin1").decode(data.subarray(0, head)).split("\r\n");
    return {
      requestLine: lines[0],
      headers: lines.slice(1).map((l) => {
        const i = l.indexOf(":");
        return [l.slice(0, i).toLowerCase(), l.slice(i + 1).trim()] as [string, string];
      }),
      body: data.subarray(head + 4, head + 4 + length),
    };
  })();
  try {
    await send(url);
    return await received;
  } finally {
    listener.close();
  }
}

Deno.test("headers: Content-Type, then custom lines, then bearer, then the signature", () => {
  const request = buildRequest({
    ...SETTINGS,
    bearer: "tok_123",
    headers: [["X-One", "1"], ["Authorization", "Basic forged"], ["X-Two", "2"]],
    signingSecret: "a-signing-secret-of-some-length",
  }, outbound);
  assert.deepEqual(request.headers.map(([n]) => n.toLowerCase()), [
    "content-type",
    "x-one",
    "x-two",
    "authorization",
    "x-service-signature",
  ]);
  const auth = request.headers.filter(([n]) => n.toLowerCase() === "authorization");
  assert.deepEqual(auth, [["Authorization", "Bearer tok_123"]]);
});

Deno.test("headers: without a bearer a custom Authorization line is sent as configured", () => {
  const request = buildRequest(
    { ...SETTINGS, headers: [["Authorization", "Basic dXNlcjpwdw=="]] },
    outbound,
  );
  assert.deepEqual(request.headers, [
    ["Content-Type", "application/json; charset=utf-8"],
    ["Authorization", "Basic dXNlcjpwdw=="],
  ]);
});

Deno.test("headers: no Authorization and no signature unless configured", () => {
  const request = buildRequest(SETTINGS, outbound);
  assert.deepEqual(request.headers, [["Content-Type", "application/json; charset=utf-8"]]);
  assert.equal(request.method, "POST");
  assert.equal(request.url, "http://127.0.0.1:9/hook");
});

Deno.test("headers: a custom Content-Type line replaces the mode's; repeated names are all sent", () => {
  const request = buildRequest({
    ...SETTINGS,
    headers: [["content-type", "application/vnd.api+json"], ["X-Tag", "a"], ["X-Tag", "b"]],
  }, outbound);
  assert.deepEqual(request.headers, [
    ["content-type", "application/vnd.api+json"],
    ["X-Tag", "a"],
    ["X-Tag", "b"],
  ]);
});

Deno.test("headers: a custom line cannot forge the signature header", () => {
  const request = buildRequest({
    ...SETTINGS,
    headers: [["X-Service-Signature", "sha256=forged"]],
    signingSecret: "a-signing-secret-of-some-length",
  }, outbound);
  const signatures = request.headers.filter(([n]) => n.toLowerCase() === "x-service-signature");
  assert.equal(signatures.length, 1);
  assert.notEqual(signatures[0][1], "sha256=forged");
});

Deno.test("on the wire: header order, method, custom signature name and the exact body bytes", async () => {
  const secret = "s3cr3t-signing-key-of-length";
  const raw = await captureOne(async (url) => {
    const request = buildRequest({
      ...SETTINGS,
      url,
      method: "PATCH",
      bearer: "tok_abc",
      headers: [["X-Env", "prod"], ["Authorization", "Basic nope"]],
      signingSecret: secret,
      signatureHeader: "X-Hub-Signature-256",
    }, outbound);
    const result = await sendRequest(request, { timeoutMs: 5000, blockPrivateNetworks: false });
    assert.equal(result.status, 200);
    assert.equal(result.snippet, "ok");
  });
  assert.equal(raw.requestLine, "PATCH /hook HTTP/1.1");
  const ours = raw.headers.map(([n]) => n).filter((n) =>
    ["content-type", "x-env", "authorization", "x-hub-signature-256"].includes(n)
  );
  assert.deepEqual(ours, ["content-type", "x-env", "authorization", "x-hub-signature-256"]);
  const get = (name: string) => raw.headers.filter(([n]) => n === name).map(([, v]) => v);
  assert.deepEqual(get("authorization"), ["Bearer tok_abc"]);
  assert.deepEqual(get("content-type"), ["application/json; charset=utf-8"]);
  assert.deepEqual(raw.body, body);
  assert.equal(get("x-hub-signature-256")[0], signBody(secret, raw.body));
  assert.ok(verifyWebhookSignature(raw.body, get("x-hub-signature-256")[0], secret));
});

async function run(cmd: string, args: string[], input: Uint8Array): Promise<string> {
  const child = new Deno.Command(cmd, { args, stdin: "piped", stdout: "piped", stderr: "piped" })
    .spawn();
  const writer = child.stdin.getWriter();
  await writer.write(input);
  await writer.close();
  const out = await child.output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test("signature: sha256= + lowercase hex HMAC-SHA256, checked by python3 hmac and openssl", async () => {
  // Secrets shorter than, as long as and longer than SHA-256's 64-byte block (hashed first).
  const secrets = [
    "whsec_" + "A".repeat(43) + "=",
    "s".repeat(64),
    "L".repeat(65) + "~",
    "x".repeat(512),
  ];
  const bodies = [
    body,
    new TextEncoder().encode("a=1&b=%C3%A9+x\n"),
    new Uint8Array([0, 255, 10, 13, 34, 92]),
    new Uint8Array(),
  ];
  for (const secret of secrets) {
    for (const bytes of bodies) {
      const header = signBody(secret, bytes);
      assert.match(header, /^sha256=[0-9a-f]{64}$/);
      const python = await run(PYTHON, [
        "-c",
        "import sys, hmac, hashlib; " +
        "print('sha256=' + hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), " +
        "hashlib.sha256).hexdigest())",
        secret,
      ], bytes);
      assert.equal(header, python);
      const openssl = await run("openssl", ["dgst", "-sha256", "-hmac", secret, "-r"], bytes);
      assert.equal(header, "sha256=" + openssl.split(" ")[0]);
      assert.ok(verifyWebhookSignature(bytes, header, secret));
      assert.ok(!verifyWebhookSignature(bytes, header, secret + "x"));
    }
  }
});

Deno.test("native signatures match the SDK's portable verifier and HMAC, around the block size", () => {
  for (const keyLength of [8, 24, 31, 32, 33, 64, 65, 130]) {
    for (const size of [0, 1, 55, 56, 63, 64, 65, 700, 20_000]) {
      const key = crypto.getRandomValues(new Uint8Array(keyLength));
      const bytes = crypto.getRandomValues(new Uint8Array(size));
      const secret = key.toHex();
      assert.equal(signBody(secret, bytes), "sha256=" + hmacSha256Hex(secret, bytes));
      assert.ok(verifyWebhookSignature(bytes, signBody(secret, bytes), secret));
      const signed = new Uint8Array([...new TextEncoder().encode("d1.1700000000."), ...bytes]);
      assert.equal(
        standardSignature(key, "d1", 1700000000, bytes),
        "v1," + Uint8Array.fromHex(hmacSha256Hex(key, signed)).toBase64(),
      );
    }
  }
});

Deno.test("Standard Webhooks: webhook-id, -timestamp and -signature, checked by python3", async () => {
  const secret = generateSigningSecret();
  const now = Date.UTC(2024, 0, 2, 3, 4, 5);
  const request = buildRequest(
    { ...SETTINGS, signingSecret: secret, standardWebhooks: true },
    outbound,
    now,
  );
  const get = (name: string) => request.headers.find(([n]) => n === name)?.[1];
  assert.equal(get("webhook-id"), "d1");
  assert.equal(get("webhook-timestamp"), String(now / 1000));
  const signature = get("webhook-signature")!;
  assert.match(signature, /^v1,[A-Za-z0-9+/]+=*$/);
  assert.equal(
    signature,
    standardSignature(Uint8Array.fromBase64(secret.slice(6)), "d1", now / 1000, body),
  );
  const python = await run(PYTHON, [
    "-c",
    "import sys, hmac, hashlib, base64; key = base64.b64decode(sys.argv[1][6:]); " +
    "signed = f'{sys.argv[2]}.{sys.argv[3]}.'.encode() + sys.stdin.buffer.read(); " +
    "print('v1,' + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode())",
    secret,
    "d1",
    String(now / 1000),
  ], body);
  assert.equal(signature, python);
  // The service signature is sent too, over the same bytes.
  assert.ok(verifyWebhookSignature(body, get("X-Service-Signature"), secret));
});
