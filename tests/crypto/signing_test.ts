import assert from "node:assert/strict";
import { fromHex } from "../../src/crypto/encoding.ts";
import { CryptoError } from "../../src/crypto/errors.ts";
import {
  canonicalJson,
  generateSigningKeyPair,
  manifestKeyFingerprint,
  manifestSigningBytes,
  signingPublicKey,
  signManifest,
  verifyManifestSignature,
} from "../../src/crypto/signing.ts";

// RFC 8032 section 7.1, test 1.
const SEED = fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
const PUBLIC = fromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
const FINGERPRINT = "21fe31dfa154a261626bf854046fd2271b7bed4b6abe45aa58877ef47f9721b9";

const MANIFEST = {
  title: "Kontakt – Grüße",
  schemaVersion: 3,
  formId: "contact",
  relayUrl: "https://forms.example.com",
  recipient: { userId: "u1", publicKey: "hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=" },
  fields: [
    { kind: "text", label: "Name", id: "name", required: true },
    { id: "n", label: "N", kind: "number", min: -1.5, max: 100 },
  ],
};

const CANONICAL = '{"fields":[{"id":"name","kind":"text","label":"Name","required":true},' +
  '{"id":"n","kind":"number","label":"N","max":100,"min":-1.5}],"formId":"contact",' +
  '"recipient":{"publicKey":"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=","userId":"u1"},' +
  '"relayUrl":"https://forms.example.com","schemaVersion":3,"title":"Kontakt – Grüße"}';

// python3-nacl: SigningKey(SEED).sign(b"sealpost-manifest-v1\n" + CANONICAL).signature
const SIGNATURE =
  "KFU9Ahp9U61+Uc+mXdUewklKK6Ti8XpDI/79dtijF6GHkWmtFyadYS1caxtXB8SLfLusu6HiP+towra2TPzhCA==";

Deno.test("canonicalJson: sorted keys, no whitespace, JSON.stringify scalars", () => {
  assert.equal(canonicalJson(MANIFEST), CANONICAL);
  assert.equal(
    canonicalJson({ b: 1, a: [true, null, 'x\n"y'], c: { z: 0, y: -0 } }),
    '{"a":[true,null,"x\\n\\"y"],"b":1,"c":{"y":0,"z":0}}',
  );
  assert.equal(canonicalJson({ a: undefined, b: 1e21, c: 0.1 }), '{"b":1e+21,"c":0.1}');
  // UTF-16 code unit order: "\u{1F600}" (D83D...) sorts before "\uFFFF".
  assert.equal(
    canonicalJson({ "\uffff": 1, "\u{1F600}": 2, "Z": 3, "a": 4 }),
    '{"Z":3,"a":4,"😀":2,"\uffff":1}',
  );
  for (const bad of [NaN, Infinity, 1n, () => 1, new Date(0), { a: Symbol("x") }]) {
    assert.throws(() => canonicalJson(bad), CryptoError);
  }
  assert.throws(() => canonicalJson({ a: [1, { b: NaN }] }), /at \$\.a\[1\]\.b/);
});

Deno.test("manifestSigningBytes: context prefix, signature member excluded", () => {
  const bytes = manifestSigningBytes({ ...MANIFEST, signature: { alg: "ed25519" } });
  assert.equal(new TextDecoder().decode(bytes), "sealpost-manifest-v1\n" + CANONICAL);
});

Deno.test("signing keys: RFC 8032 public key and fingerprint", () => {
  assert.deepEqual(signingPublicKey(SEED), PUBLIC);
  assert.equal(manifestKeyFingerprint(PUBLIC), FINGERPRINT);
});

Deno.test("signManifest: matches libsodium's Ed25519 (python3-nacl) byte for byte", () => {
  const signed = signManifest(MANIFEST, SEED);
  assert.deepEqual(signed.signature, {
    alg: "ed25519",
    publicKey: "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
    value: SIGNATURE,
  });
  assert.equal(verifyManifestSignature(signed, FINGERPRINT), FINGERPRINT);
  // Member order and a re-signed manifest do not matter.
  const reordered = JSON.parse(JSON.stringify({ signature: signed.signature, ...MANIFEST }));
  verifyManifestSignature(reordered, FINGERPRINT.toUpperCase());
  assert.deepEqual(signManifest(signed, SEED), signed);
});

/** Every way to alter one leaf or member of a JSON value, with a description. */
function* tamperings(value: unknown, path: string): Generator<[string, (root: unknown) => void]> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* tamperings(value[i], `${path}[${i}]`);
    yield [`${path}: item appended`, (r) => (get(r, path) as unknown[]).push("x")];
    yield [`${path}: item removed`, (r) => (get(r, path) as unknown[]).pop()];
    return;
  }
  if (value !== null && typeof value === "object") {
    for (const key of Object.keys(value)) {
      yield* tamperings((value as Record<string, unknown>)[key], `${path}.${key}`);
      yield [
        `${path}.${key}: removed`,
        (r) => delete (get(r, path) as Record<string, unknown>)[key],
      ];
    }
    yield [`${path}: member added`, (r) => ((get(r, path) as Record<string, unknown>).extra = 1)];
    return;
  }
  const altered = typeof value === "string"
    ? value + "x"
    : typeof value === "number"
    ? value + 1
    : typeof value === "boolean"
    ? !value
    : "x";
  yield [
    `${path}: ${JSON.stringify(value)} -> ${JSON.stringify(altered)}`,
    (r) => set(r, path, altered),
  ];
}

function steps(path: string): (string | number)[] {
  return [...path.matchAll(/\.([^.[]+)|\[(\d+)\]/g)].map((m) => m[1] ?? Number(m[2]));
}
function get(root: unknown, path: string): unknown {
  return steps(path).reduce((o, k) => (o as Record<string | number, unknown>)[k], root);
}
function set(root: unknown, path: string, value: unknown): void {
  const s = steps(path);
  (get(
    root,
    "$" + s.slice(0, -1).map((k) => typeof k === "number" ? `[${k}]` : `.${k}`).join(""),
  ) as Record<string | number, unknown>)[s.at(-1)!] = value;
}

Deno.test("verifyManifestSignature: every single alteration is rejected", () => {
  const signed = signManifest(MANIFEST, SEED);
  let count = 0;
  for (const [what, tamper] of tamperings(MANIFEST, "$")) {
    const copy = structuredClone(signed);
    tamper(copy);
    assert.throws(() => verifyManifestSignature(copy, FINGERPRINT), (e) => {
      assert.ok(e instanceof CryptoError, what);
      assert.equal(e.code, "invalid_signature", what);
      assert.match(e.message, /altered after signing/, what);
      return true;
    }, what);
    count++;
  }
  assert.ok(count > 30, `only ${count} alterations`);
});

Deno.test("verifyManifestSignature: key substitution and signature damage are rejected", () => {
  const signed = signManifest(MANIFEST, SEED);
  const attacker = generateSigningKeyPair();
  const attackerRecipient = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
  const cases: [string, unknown, RegExp][] = [
    ["recipient key substituted", {
      ...signed,
      recipient: { ...signed.recipient, publicKey: attackerRecipient },
    }, /altered after signing/],
    [
      "re-signed by another key",
      signManifest({
        ...MANIFEST,
        recipient: { ...MANIFEST.recipient, publicKey: attackerRecipient },
      }, attacker.secretKey),
      /not the pinned/,
    ],
    ["signer key swapped, value kept", {
      ...signed,
      signature: {
        ...signed.signature,
        publicKey: signManifest({}, attacker.secretKey).signature.publicKey,
      },
    }, /not the pinned/],
    ["unsigned", MANIFEST, /not signed/],
    ["signature null", { ...MANIFEST, signature: null }, /not signed/],
    ["other alg", { ...signed, signature: { ...signed.signature, alg: "rsa" } }, /alg "rsa"/],
    ["short value", { ...signed, signature: { ...signed.signature, value: "AAAA" } }, /64 bytes/],
    ["value not base64", { ...signed, signature: { ...signed.signature, value: "!" } }, /64 bytes/],
    [
      "key not a string",
      { ...signed, signature: { ...signed.signature, publicKey: 5 } },
      /32 bytes/,
    ],
    ["zero signature", {
      ...signed,
      signature: { ...signed.signature, value: "A".repeat(86) + "==" },
    }, /does not verify|malformed/],
  ];
  for (const [what, manifest, message] of cases) {
    assert.throws(() => verifyManifestSignature(manifest as object, FINGERPRINT), (e) => {
      assert.ok(e instanceof CryptoError, what);
      assert.equal(e.code, "invalid_signature", what);
      assert.match(e.message, message, what);
      return true;
    }, what);
  }
  // A bad pin is the caller's error, not the manifest's.
  for (const pin of ["", "abc", FINGERPRINT + "00", "g".repeat(64)]) {
    assert.throws(
      () => verifyManifestSignature(signed, pin),
      (e) => e instanceof CryptoError && e.code === "invalid_input",
    );
  }
});
