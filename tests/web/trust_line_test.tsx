/**
 * The form page's trust line: the owner's name, the short fingerprint of the form key (the
 * SHA-256 of the X25519 public key the page seals to) and the file mode, from a manifest.
 */
import assert from "node:assert/strict";
import { fingerprint, generateKeyPair, shortFingerprint } from "../../src/crypto/keys.ts";
import type { Manifest } from "../../src/forms/manifest.ts";
import { trustFacts, TrustLine } from "../../src/web/form/trust_line.tsx";

const pair = generateKeyPair();
const base: Manifest = {
  formId: "tips",
  schemaVersion: 1,
  title: "Tips",
  recipient: { publicKey: pair.publicKey.toBase64(), userId: "u1" },
  fields: [
    { id: "name", label: "Name", kind: "text" },
    { id: "doc", label: "Document", kind: "attachment" },
  ],
  relayUrl: "https://forms.example",
  files: "encrypted",
  owner: { name: "Grace Hopper" },
};

Deno.test("the short fingerprint: the first 16 hex characters in 4 groups", () => {
  assert.equal(shortFingerprint("3f1c9a2b77d0e412" + "0".repeat(48)), "3f1c 9a2b 77d0 e412");
});

Deno.test("trust facts: owner name, the form key's short fingerprint, the file mode", () => {
  const facts = trustFacts(base);
  assert.deepEqual(facts, {
    ownerName: "Grace Hopper",
    key: shortFingerprint(fingerprint(pair.publicKey)),
    files: "encrypted",
  });
  assert.match(facts.key, /^[0-9a-f]{4}( [0-9a-f]{4}){3}$/);
  assert.equal(trustFacts({ ...base, files: undefined }).files, "plain", "absent is plain");
  assert.equal(trustFacts({ ...base, fields: [base.fields[0]] }).files, null, "no file fields");
  assert.equal(trustFacts({ ...base, owner: undefined }).ownerName, "");
});

Deno.test("the trust line says who reads the answers, with which key, and what of files", () => {
  const facts = trustFacts(base);
  const encrypted = String(<TrustLine facts={facts} />);
  assert.match(encrypted, /Only <strong>Grace Hopper<\/strong> can read your answers/);
  assert.ok(encrypted.includes(`<code class="key">${facts.key}</code>`));
  assert.match(encrypted, /Files you attach are encrypted the same way/);
  const plain = String(<TrustLine facts={{ ...facts, files: "plain" }} />);
  assert.match(plain, /Files you attach are not encrypted: the server that stores them can/);
  const noFiles = String(<TrustLine facts={{ ...facts, files: null }} />);
  assert.doesNotMatch(noFiles, /Files/);
  const nameless = String(<TrustLine facts={{ ...facts, ownerName: "" }} />);
  assert.match(nameless, /Only <strong>the form&#39;s owner<\/strong> can read/);
  const hostile = String(<TrustLine facts={{ ...facts, ownerName: "<b>x</b>" }} />);
  assert.ok(hostile.includes("&lt;b&gt;x&lt;/b&gt;"), "the name is text, never markup");
});
