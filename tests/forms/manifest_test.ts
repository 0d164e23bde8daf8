import assert from "node:assert/strict";
import { ManifestSchema } from "../../src/forms/manifest.ts";

const KEY = "hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=";
const VALID = {
  formId: "contact-2024_v1",
  schemaVersion: 1,
  title: "Contact",
  recipient: { publicKey: KEY, userId: "u_1" },
  fields: [
    { id: "email", label: "Email", kind: "email", required: true },
    { id: "colour", label: "Colour", kind: "choice", options: ["red", "blue"], multiple: true },
  ],
  relayUrl: "https://forms.example.com",
};

Deno.test("ManifestSchema accepts a valid manifest and keeps extra members", () => {
  const signed = {
    ...VALID,
    description: "Extra members are kept",
    signature: { alg: "ed25519", publicKey: KEY, value: "A".repeat(86) + "==" },
  };
  assert.deepEqual(ManifestSchema.parse(signed), signed);
  assert.deepEqual(ManifestSchema.parse(VALID), VALID);
});

Deno.test("ManifestSchema rejects bad members, naming them", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["formId", { formId: "" }],
    ["formId", { formId: "a/b" }],
    ["formId", { formId: "x".repeat(129) }],
    ["schemaVersion", { schemaVersion: 0 }],
    ["schemaVersion", { schemaVersion: 1.5 }],
    ["schemaVersion", { schemaVersion: "1" }],
    ["title", { title: 5 }],
    ["recipient.publicKey", { recipient: { publicKey: "AAAA", userId: "u" } }],
    ["recipient.publicKey", { recipient: { publicKey: KEY.replace("/", "_"), userId: "u" } }],
    ["recipient.userId", { recipient: { publicKey: KEY, userId: "" } }],
    ["recipient", { recipient: undefined }],
    ["fields.0.kind", { fields: [{ id: "a", label: "A", kind: "colour" }] }],
    ["fields.1.id", { fields: [VALID.fields[0], VALID.fields[0]] }],
    ["relayUrl", { relayUrl: "forms.example.com" }],
    ["relayUrl", { relayUrl: "ftp://forms.example.com" }],
    ["signature.alg", { signature: { alg: "rsa", publicKey: KEY, value: "A".repeat(86) + "==" } }],
    ["signature.value", { signature: { alg: "ed25519", publicKey: KEY, value: KEY } }],
    ["webhooks", { webhooks: [{ url: "https://evil.example" }] }],
    ["outboundConfig", { outboundConfig: {} }],
    ["webhookSecret", { webhookSecret: "s" }],
  ];
  for (const [path, change] of cases) {
    const r = ManifestSchema.safeParse({ ...VALID, ...change });
    assert.equal(r.success, false, JSON.stringify(change));
    assert.ok(
      r.error!.issues.some((i) => i.path.join(".") === path),
      `${path}: ${JSON.stringify(r.error!.issues.map((i) => i.path.join(".")))}`,
    );
  }
  for (const missing of ["formId", "schemaVersion", "title", "recipient", "fields", "relayUrl"]) {
    const copy: Record<string, unknown> = { ...VALID };
    delete copy[missing];
    assert.equal(ManifestSchema.safeParse(copy).success, false, missing);
  }
});
