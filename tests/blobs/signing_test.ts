import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { canonicalRequest, type SignedRequest, UrlSigner } from "../../src/blobs/signing.ts";

const SECRET = new Uint8Array(32).map((_, i) => i);
const HASH = "ab".repeat(32);
const BASE: SignedRequest = {
  method: "PUT",
  path: `/blobs/u1/${HASH}`,
  expires: 1_800_000_000,
  mime: "image/png",
  maxBytes: 1234,
};

Deno.test("signature: HMAC-SHA256 by HMAC(secret, label) of the canonical request", async () => {
  const signer = await UrlSigner.fromRelaySecret(SECRET);
  const key = createHmac("sha256", SECRET).update("sealpost/blob-url-key/v1").digest();
  const canonical = canonicalRequest(BASE);
  assert.equal(
    canonical,
    `["sealpost/blob-url/v1","PUT","/blobs/u1/${HASH}",1800000000,"image/png",1234]`,
  );
  const expected = createHmac("sha256", key).update(canonical).digest("base64url");
  assert.equal(await signer.sign(BASE), expected);
  assert.match(expected, /^[A-Za-z0-9_-]{43}$/);
  // The raw relay secret is never the signing key.
  const raw = createHmac("sha256", SECRET).update(canonical).digest("base64url");
  assert.notEqual(expected, raw);
});

Deno.test("verify accepts the signature and rejects each signed parameter altered", async () => {
  const signer = await UrlSigner.fromRelaySecret(SECRET);
  const sig = await signer.sign(BASE);
  assert.equal(await signer.verify(BASE, sig), true);
  const tampered: [string, SignedRequest][] = [
    ["method", { ...BASE, method: "GET" }],
    ["path user", { ...BASE, path: `/blobs/u2/${HASH}` }],
    ["path hash", { ...BASE, path: `/blobs/u1/${"cd".repeat(32)}` }],
    ["expires", { ...BASE, expires: BASE.expires + 1 }],
    ["mime", { ...BASE, mime: "text/html" }],
    ["mime dropped", { ...BASE, mime: null }],
    ["size cap", { ...BASE, maxBytes: 1235 }],
    ["size cap dropped", { ...BASE, maxBytes: null }],
  ];
  for (const [what, request] of tampered) {
    assert.equal(await signer.verify(request, sig), false, what);
  }
});

Deno.test("verify rejects malformed and re-encoded signatures, and other secrets", async () => {
  const signer = await UrlSigner.fromRelaySecret(SECRET);
  const sig = await signer.sign(BASE);
  const last = sig.at(-1)!;
  // The last of 43 characters carries 4 bits of padding: an alias decodes to the same MAC.
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const alias = alphabet[alphabet.indexOf(last) ^ 1];
  for (
    const bad of [
      "",
      sig.slice(0, 42),
      sig + "A",
      sig + "=",
      sig.slice(0, 42) + alias,
      sig.replace(/^./, (c) => (c === "A" ? "B" : "A")),
      "!".repeat(43),
    ]
  ) {
    assert.equal(await signer.verify(BASE, bad), false, JSON.stringify(bad));
  }
  const other = await UrlSigner.fromRelaySecret(new Uint8Array(32).fill(7));
  assert.equal(await other.verify(BASE, sig), false);
});

Deno.test("the canonical string cannot be shifted between fields", () => {
  const a = canonicalRequest({ ...BASE, mime: 'a","b' });
  const b = canonicalRequest({ ...BASE, mime: "a", path: BASE.path + '","b' });
  assert.notEqual(a, b);
  assert.notEqual(
    canonicalRequest({ ...BASE, mime: null }),
    canonicalRequest({ ...BASE, mime: "null" }),
  );
});
