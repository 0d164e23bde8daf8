/**
 * The sender SDK end to end against a fake relay. Written with node:test and
 * node:assert/strict so the same file runs under `deno test` and, bundled, under Node 20's
 * `node --test` (see node_runtime_test.ts).
 */
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { test } from "node:test";
import { fromBase64, toBase64 } from "../../src/crypto/encoding.ts";
import { generateKeyPair } from "../../src/crypto/keys.ts";
import { open, x25519Impl } from "../../src/crypto/sealed_box.ts";
import { generateSigningKeyPair, signManifest } from "../../src/crypto/signing.ts";
import { buildValuesSchema } from "../../src/forms/fields.ts";
import { FileRefSchema } from "../../src/forms/file_ref.ts";
import { SubmissionPayloadSchema } from "../../src/forms/payload.ts";
import {
  buildEnvelope,
  buildPayload,
  fetchManifest,
  type Manifest,
  ManifestError,
  manifestKeyFingerprint,
  manifestUrl,
  NetworkError,
  newSubmissionId,
  RelayError,
  seal,
  SealpostError,
  submit,
  submitForm,
  uploadFile,
  ValidationError,
  verifyManifest,
  verifyWebhookSignature,
} from "../../src/sdk/mod.ts";
import { type FakeRelay, startFakeRelay } from "./_fake_relay.ts";
import { Decrypter } from "age-encryption";
import { ageIdentity } from "../../src/crypto/age.ts";
import { chunkSealer, nobleSealer } from "../../src/crypto/_age_chunks.ts";

const recipient = generateKeyPair();
const manifestKey = generateSigningKeyPair();
const PIN = manifestKeyFingerprint(manifestKey.publicKey);

function unsignedManifest(relayUrl: string) {
  return {
    formId: "contact",
    schemaVersion: 4,
    title: "Contact",
    recipient: { publicKey: toBase64(recipient.publicKey), userId: "user-1" },
    relayUrl,
    fields: [
      { id: "email", label: "Email", kind: "email", required: true },
      { id: "age", label: "Age", kind: "number", integer: true, min: 0 },
      { id: "where", label: "Where", kind: "geo" },
      { id: "tags", label: "Tags", kind: "list" },
      { id: "photo", label: "Photo", kind: "image", accept: ["image/*"] },
      { id: "cv", label: "CV", kind: "attachment" },
    ],
  };
}

async function withRelay(fn: (relay: FakeRelay) => Promise<void>): Promise<void> {
  const relay = await startFakeRelay((url) =>
    signManifest(unsignedManifest(url), manifestKey.secretKey)
  );
  try {
    await fn(relay);
  } finally {
    await relay.close();
  }
}

async function openPayload(ciphertext: string) {
  const plain = await open(fromBase64(ciphertext), recipient.publicKey, recipient.secretKey);
  return SubmissionPayloadSchema.parse(JSON.parse(new TextDecoder().decode(plain)));
}

function assertError<T extends SealpostError>(
  type: new (...args: never[]) => T,
  check: Partial<Record<keyof T, unknown>>,
) {
  return (e: unknown) => {
    assert.ok(e instanceof type, `expected ${type.name}, got ${e}`);
    for (const [k, v] of Object.entries(check)) {
      const actual: unknown = (e as unknown as Record<string, unknown>)[k];
      if (v instanceof RegExp) assert.match(String(actual), v, k);
      else assert.deepEqual(actual, v, k);
    }
    return true;
  };
}

test("fetchManifest: by form id and by URL, verified against the pin", async () => {
  await withRelay(async (relay) => {
    const byId = await fetchManifest("contact", { relayUrl: relay.url, pin: PIN });
    assert.equal(byId.formId, "contact");
    assert.equal(byId.schemaVersion, 4);
    const byUrl = await fetchManifest(`${relay.url}/forms/contact/manifest`, { pin: PIN });
    assert.deepEqual(byUrl, byId);
    assert.equal(relay.seen.filter((s) => s.path === "/forms/contact/manifest").length, 2);
  });
});

test("manifestUrl", () => {
  assert.equal(
    manifestUrl("a b", "https://r.example/base/"),
    "https://r.example/base/forms/a%20b/manifest",
  );
  assert.equal(manifestUrl("https://x.example/m.json"), "https://x.example/m.json");
  assert.equal(manifestUrl("f"), "http://127.0.0.1:8080/forms/f/manifest");
});

test("fetchManifest: another key, tampering, no signature, bad shape, unknown form", async () => {
  await withRelay(async (relay) => {
    const other = manifestKeyFingerprint(generateSigningKeyPair().publicKey);
    await assert.rejects(
      fetchManifest("contact", { relayUrl: relay.url, pin: other }),
      assertError(ManifestError, {
        code: "manifest_unverified",
        field: "signature",
        message: /not the pinned/,
      }),
    );

    const attacker = generateKeyPair();
    relay.manifest = {
      ...relay.manifest,
      recipient: { publicKey: toBase64(attacker.publicKey), userId: "user-1" },
    };
    await assert.rejects(
      fetchManifest("contact", { relayUrl: relay.url, pin: PIN }),
      assertError(ManifestError, { code: "manifest_unverified", message: /altered/ }),
    );

    relay.manifest = unsignedManifest(relay.url);
    await assert.rejects(
      fetchManifest("contact", { relayUrl: relay.url, pin: PIN }),
      assertError(ManifestError, { code: "manifest_unverified", message: /not signed/ }),
    );

    relay.manifest = signManifest(
      { ...unsignedManifest(relay.url), schemaVersion: 0 },
      manifestKey.secretKey,
    );
    await assert.rejects(
      fetchManifest("contact", { relayUrl: relay.url, pin: PIN }),
      assertError(ManifestError, { code: "invalid_manifest", field: "schemaVersion" }),
    );

    await assert.rejects(
      fetchManifest("nope", { relayUrl: relay.url, pin: PIN, retries: 0 }),
      assertError(RelayError, { status: 404, code: "not_found", message: /No form "nope"/ }),
    );
    await assert.rejects(
      fetchManifest("contact", { relayUrl: relay.url, pin: "abc" }),
      assertError(ManifestError, { code: "invalid_pin" }),
    );
  });
});

test("verifyManifest: each top-level member altered is rejected", () => {
  const signed = signManifest(unsignedManifest("https://r.example"), manifestKey.secretKey);
  assert.equal(verifyManifest(structuredClone(signed), PIN).title, "Contact");
  const changes: Record<string, unknown> = {
    formId: "contact2",
    schemaVersion: 5,
    title: "Contact!",
    recipient: { ...signed.recipient, userId: "user-2" },
    relayUrl: "https://evil.example",
    fields: signed.fields.slice(1),
    extra: "added",
  };
  for (const [member, value] of Object.entries(changes)) {
    assert.throws(
      () => verifyManifest({ ...structuredClone(signed), [member]: value }, PIN),
      assertError(ManifestError, { code: "manifest_unverified" }),
      member,
    );
  }
  assert.throws(
    () => verifyManifest([], PIN),
    assertError(ManifestError, { code: "invalid_manifest" }),
  );
});

test("buildPayload: coerces values and lists every field at fault", () => {
  const manifest = verifyManifest(
    signManifest(unsignedManifest("https://r.example"), manifestKey.secretKey),
    PIN,
  );
  const now = new Date("2025-03-04T05:06:07.089Z");
  const payload = buildPayload(manifest, {
    email: " ada@example.com ",
    age: "36",
    where: "51.5,-0.12",
    tags: "a, b",
  }, { now });
  assert.deepEqual(payload, {
    values: {
      email: "ada@example.com",
      age: 36,
      where: { lat: 51.5, lng: -0.12 },
      tags: ["a", "b"],
    },
    submittedAt: "2025-03-04T05:06:07.089Z",
    formVersion: 4,
    formSchema: "",
    mode: "Create",
  });
  assert.equal(buildPayload(manifest, { email: "a@b.co" }, { mode: "Update" }).mode, "Update");

  assert.throws(
    () => buildPayload(manifest, { age: "3.5", where: "north", nickname: "x" }),
    (e) => {
      assert.ok(e instanceof ValidationError);
      assert.equal(e.code, "invalid_values");
      assert.equal(e.field, "nickname");
      assert.deepEqual(e.issues.map((i) => i.field).sort(), ["age", "email", "nickname", "where"]);
      assert.match(e.message, /age: Expected an integer, got 3\.5/);
      assert.match(e.message, /email: Field "email" is required/);
      return true;
    },
  );
});

test("seal: the recipient opens exactly the payload; bad keys are typed errors", async () => {
  const manifest = verifyManifest(
    signManifest(unsignedManifest("https://r.example"), manifestKey.secretKey),
    PIN,
  );
  const payload = buildPayload(manifest, { email: "a@example.com", tags: ["Grüße", "😀"] });
  const ciphertext = await seal(payload, manifest.recipient.publicKey);
  assert.deepEqual(await openPayload(ciphertext), payload);
  assert.deepEqual(await openPayload(await seal(payload, recipient.publicKey)), payload);
  await assert.rejects(
    seal(payload, "AAAA"),
    assertError(SealpostError, { code: "invalid_recipient_key", field: "recipient.publicKey" }),
  );
});

test("this runtime seals with its native WebCrypto X25519", async () => {
  assert.equal(await x25519Impl(), "webcrypto");
});

test("newSubmissionId / buildEnvelope", () => {
  const ids = new Set(Array.from({ length: 200 }, newSubmissionId));
  assert.equal(ids.size, 200);
  for (const id of ids) assert.match(id, /^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
  const manifest = {
    formId: "contact",
    recipient: { publicKey: toBase64(recipient.publicKey), userId: "u" },
  };
  const env = buildEnvelope(manifest, "AAAA");
  assert.deepEqual(Object.keys(env).sort(), [
    "ciphertext",
    "formId",
    "recipientPubkey",
    "submissionId",
    "submitterId",
  ]);
  assert.equal(env.submitterId, null);
  assert.equal(env.recipientPubkey, manifest.recipient.publicKey);
  assert.equal(
    buildEnvelope(manifest, "AAAA", { submissionId: "f".repeat(32), submitterId: "s1" })
      .submitterId,
    "s1",
  );
  assert.throws(
    () => buildEnvelope(manifest, "AAAA", { submissionId: "F".repeat(32) }),
    assertError(SealpostError, { code: "invalid_submission_id", field: "submissionId" }),
  );
});

async function envelopeFor(relay: FakeRelay) {
  const manifest = await fetchManifest("contact", { relayUrl: relay.url, pin: PIN });
  const payload = buildPayload(manifest, { email: "a@example.com" });
  return {
    manifest,
    payload,
    envelope: buildEnvelope(manifest, await seal(payload, manifest.recipient.publicKey)),
  };
}

test("submit: receipt, and retries after 503, 429 and a dropped connection keep the same id", async () => {
  await withRelay(async (relay) => {
    const { envelope, payload } = await envelopeFor(relay);
    relay.faults.set("POST /submissions", [
      { status: 503, body: { error: { code: "unavailable", message: "Busy" } } },
      { status: 429, headers: { "retry-after": "0" } },
      { drop: true },
    ]);
    const receipt = await submit(envelope, { relayUrl: relay.url, retries: 3 });
    assert.equal(receipt.submissionId, envelope.submissionId);
    assert.match(receipt.editToken, /^[0-9a-f]{32}$/);
    const posts = relay.seen.filter((s) => s.method === "POST" && s.path === "/submissions");
    assert.equal(posts.length, 4);
    const bodies = new Set(posts.map((p) => new TextDecoder().decode(p.body)));
    assert.equal(bodies.size, 1, "every attempt sends the same envelope");
    assert.equal(relay.envelopes.size, 1);
    assert.deepEqual(
      await openPayload(relay.envelopes.get(envelope.submissionId)!.ciphertext),
      payload,
    );
    // The same envelope again: the relay answers with the same receipt.
    assert.deepEqual(await submit(envelope, { relayUrl: relay.url }), receipt);
  });
});

test("submit: errors carry the server's code, message and field; 4xx is not retried", async () => {
  await withRelay(async (relay) => {
    const { envelope } = await envelopeFor(relay);
    relay.faults.set("POST /submissions", [{
      status: 413,
      body: {
        error: {
          code: "ciphertext_too_large",
          message: "Ciphertext exceeds 1024 bytes",
          field: "ciphertext",
        },
      },
    }]);
    await assert.rejects(
      submit(envelope, { relayUrl: relay.url }),
      assertError(RelayError, {
        status: 413,
        code: "ciphertext_too_large",
        field: "ciphertext",
        message: /Ciphertext exceeds 1024 bytes/,
      }),
    );
    assert.equal(relay.seen.filter((s) => s.path === "/submissions").length, 1);

    await assert.rejects(
      submit({ ...envelope, recipientPubkey: "bad" }, { relayUrl: relay.url }),
      assertError(RelayError, { status: 400, code: "invalid_request", field: "recipientPubkey" }),
    );
    relay.faults.set("POST /submissions", [{ status: 502 }, { status: 502 }]);
    await assert.rejects(
      submit(envelope, { relayUrl: relay.url, retries: 1 }),
      assertError(RelayError, { status: 502, code: "http_502" }),
    );
  });
});

test("submit: timeout and unreachable relay are NetworkErrors", async () => {
  await withRelay(async (relay) => {
    const { envelope } = await envelopeFor(relay);
    relay.faults.set("POST /submissions", [{ delayMs: 1500 }]);
    await assert.rejects(
      submit(envelope, { relayUrl: relay.url, timeoutMs: 200, retries: 0 }),
      assertError(NetworkError, { code: "timeout", message: /timed out after 200 ms/ }),
    );
  });
  const offline = buildEnvelope(
    { formId: "contact", recipient: { publicKey: "", userId: "" } },
    "AAAA",
  );
  await assert.rejects(
    submit(offline, { relayUrl: "http://127.0.0.1:9", retries: 1 }),
    assertError(NetworkError, {
      code: "network_error",
      message: /^Submitting [0-9a-f]{32} failed/,
    }),
  );
});

test("uploadFile: hash, slot, PUT with the mime; returns the owned reference", async () => {
  await withRelay(async (relay) => {
    const manifest = await fetchManifest("contact", { relayUrl: relay.url, pin: PIN });
    const bytes = new TextEncoder().encode("%PDF-1.4 fake");
    relay.faults.set("PUT /upload/", [{ status: 503 }]);
    const ref = await uploadFile(manifest, {
      data: bytes,
      mime: "application/pdf",
      fileName: "cv.pdf",
    });
    assert.equal(
      ref.hash,
      createHash("sha256").update(bytes).digest("hex"),
    );
    assert.deepEqual(ref, {
      url: `${relay.url}/submissions/blob/user-1/${ref.hash}`,
      hash: ref.hash,
      owned: true,
      mime: "application/pdf",
      sizeBytes: bytes.length,
      fileName: "cv.pdf",
    });
    assert.deepEqual(FileRefSchema.parse(ref), ref);
    assert.deepEqual(relay.blobs.get(ref.hash)?.bytes, bytes);
    const slot = relay.seen.find((s) => s.path === "/submissions/upload-slot")!;
    assert.deepEqual(JSON.parse(new TextDecoder().decode(slot.body)), {
      recipientUserId: "user-1",
      hash: ref.hash,
      mime: "application/pdf",
      sizeBytes: bytes.length,
    });
    const puts = relay.seen.filter((s) => s.method === "PUT");
    assert.equal(puts.length, 2, "the 503 was retried");
    assert.equal(puts[1].headers["content-type"], "application/pdf");

    const blobRef = await uploadFile(manifest, { data: new Blob([bytes], { type: "text/plain" }) });
    assert.equal(blobRef.mime, "text/plain");
    assert.equal(blobRef.fileName, undefined);

    await assert.rejects(
      uploadFile(manifest, { data: new Uint8Array(0) }, { field: "cv" }),
      assertError(SealpostError, {
        code: "invalid_file",
        field: "cv",
        message: /File for "cv" has 0 bytes/,
      }),
    );
  });
});

test("uploadFile with encrypt: native age encryption, hashed on the way, opened by age-encryption", async () => {
  await withRelay(async (relay) => {
    const manifest = await fetchManifest("contact", { relayUrl: relay.url, pin: PIN });
    // Deno and Node both have node:crypto: the SDK seals the age chunks natively there.
    assert.notEqual(chunkSealer(), nobleSealer);
    const bytes = new Uint8Array(200_000).map((_, i) => i % 241);
    const ref = await uploadFile(manifest, { data: bytes, mime: "application/pdf" }, {
      encrypt: true,
    });
    assert.equal(ref.encryption, "age");
    assert.equal(ref.sizeBytes, bytes.length);
    assert.equal(ref.mime, "application/pdf");
    // The relay's own hash check passed: the hash taken while encrypting is the ciphertext's.
    const stored = relay.blobs.get(ref.hash)!;
    assert.equal(stored.mime, "application/octet-stream");
    assert.equal(createHash("sha256").update(stored.bytes).digest("hex"), ref.hash);
    const decrypter = new Decrypter();
    decrypter.addIdentity(ageIdentity(recipient.secretKey));
    const opened = await decrypter.decrypt(stored.bytes);
    assert.deepEqual(opened.subarray(0, bytes.length), bytes);
    assert.ok(opened.subarray(bytes.length).every((b) => b === 0), "zero padding");
  });
});

test("submitForm: values and files to a sealed envelope the vault accepts", async () => {
  await withRelay(async (relay) => {
    const manifest: Manifest = await fetchManifest("contact", { relayUrl: relay.url, pin: PIN });
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const receipt = await submitForm(manifest, { email: "ada@example.com", age: 36 }, {
      files: { photo: { data: png, mime: "image/png", fileName: "me.png" } },
    });
    const envelope = relay.envelopes.get(receipt.submissionId)!;
    assert.equal(envelope.formId, "contact");
    const payload = await openPayload(envelope.ciphertext);
    const strict = buildValuesSchema(manifest.fields, { mode: "strict" }).parse(payload.values);
    assert.equal(strict.email, "ada@example.com");
    assert.deepEqual(strict.photo, {
      url: `${relay.url}/submissions/blob/user-1/${(strict.photo as { hash: string }).hash}`,
      hash: (strict.photo as { hash: string }).hash,
      owned: true,
      mime: "image/png",
      sizeBytes: 7,
      fileName: "me.png",
    });
    assert.deepEqual(relay.blobs.get((strict.photo as { hash: string }).hash)?.bytes, png);

    // Invalid values fail before any upload; so does a file the field does not accept.
    const before = relay.seen.length;
    await assert.rejects(
      submitForm(manifest, { email: "a@b.co", age: "x" }, {
        files: { photo: { data: png, mime: "image/png" } },
      }),
      assertError(ValidationError, { field: "age" }),
    );
    await assert.rejects(
      submitForm(manifest, { email: "a@b.co" }, {
        files: { photo: { data: png, mime: "application/pdf" } },
      }),
      assertError(ValidationError, { field: "photo", message: /not one of image\/\*/ }),
    );
    await assert.rejects(
      submitForm(manifest, { email: "a@b.co" }, { files: { email: { data: png } } }),
      assertError(SealpostError, { code: "invalid_values", field: "email" }),
    );
    assert.equal(relay.seen.length, before);
  });
});

test("verifyWebhookSignature: constant-time check of sha256=<hex HMAC of the raw body>", () => {
  const secret = "whsec_test";
  const body = '{"_recordId":"r1","_formId":"f","_reason":"insert","name":"Grüße"}';
  const raw = new TextEncoder().encode(body);
  const header = "sha256=" + createHmac("sha256", secret).update(raw).digest("hex");
  assert.equal(verifyWebhookSignature(raw, header, secret), true);
  assert.equal(verifyWebhookSignature(body, header, secret), true);
  assert.equal(verifyWebhookSignature(raw, header, new TextEncoder().encode(secret)), true);
  const rejected: [Uint8Array | string, string | null | undefined, string][] = [
    [raw, null, secret],
    [raw, undefined, secret],
    [raw, "", secret],
    [raw, header.slice(7), secret], // no prefix
    [raw, "SHA256=" + header.slice(7), secret],
    [raw, "sha1=" + header.slice(7), secret],
    [raw, header.toUpperCase().replace("SHA256=", "sha256="), secret],
    [raw, header + "00", secret],
    [raw, header.slice(0, -1), secret],
    [body + " ", header, secret],
    [JSON.stringify(JSON.parse(body), null, 1), header, secret],
    [raw, header, "other"],
    [raw, header, ""],
  ];
  for (const [b, h, s] of rejected) {
    assert.equal(verifyWebhookSignature(b, h, s), false, `${h} / ${s}`);
  }
});
