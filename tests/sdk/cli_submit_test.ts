/** `sealpost submit` in-process against the fake relay. */
import assert from "node:assert/strict";
import { mimeFromPath, submitCommand } from "../../src/cli/submit.ts";
import { fromBase64, toBase64 } from "../../src/crypto/encoding.ts";
import { generateKeyPair } from "../../src/crypto/keys.ts";
import { open } from "../../src/crypto/sealed_box.ts";
import {
  generateSigningKeyPair,
  manifestKeyFingerprint,
  signManifest,
} from "../../src/crypto/signing.ts";
import { type FakeRelay, startFakeRelay } from "./_fake_relay.ts";

const recipient = generateKeyPair();
const manifestKey = generateSigningKeyPair();
const PIN = manifestKeyFingerprint(manifestKey.publicKey);

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  console.log = (...a: unknown[]) => out.push(a.join(" "));
  console.error = (...a: unknown[]) => err.push(a.join(" "));
  try {
    const code = await submitCommand(args);
    return { code, out: out.join("\n"), err: err.join("\n") };
  } finally {
    console.log = log;
    console.error = error;
  }
}

async function setup(): Promise<{ relay: FakeRelay; dir: string; close(): Promise<void> }> {
  const relay = await startFakeRelay((url) =>
    signManifest({
      formId: "contact",
      schemaVersion: 1,
      title: "Contact",
      recipient: { publicKey: toBase64(recipient.publicKey), userId: "user-1" },
      relayUrl: url,
      fields: [
        { id: "email", label: "Email", kind: "email", required: true },
        { id: "age", label: "Age", kind: "number" },
        { id: "cv", label: "CV", kind: "attachment" },
      ],
    }, manifestKey.secretKey)
  );
  const dir = await Deno.makeTempDir({ prefix: "sealpost-cli-" });
  await Deno.writeTextFile(
    `${dir}/values.json`,
    JSON.stringify({ email: "a@example.com", age: "7" }),
  );
  await Deno.writeTextFile(`${dir}/cv.pdf`, "%PDF-1.4 test");
  return {
    relay,
    dir,
    close: async () => {
      await relay.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("sealpost submit: values and a file, plain and --json output", async () => {
  const { relay, dir, close } = await setup();
  try {
    const plain = await run([
      "contact",
      "--relay",
      relay.url,
      "--values",
      `${dir}/values.json`,
      "--file",
      `cv=${dir}/cv.pdf`,
      "--pin",
      PIN,
    ]);
    assert.equal(plain.code, 0, plain.err);
    assert.match(
      plain.out,
      /^submissionId: [0-9a-f]{32}\neditToken: +[0-9a-f]{32} \(keep it secret\)$/,
    );

    const json = await run([
      `${relay.url}/forms/contact/manifest`,
      "--values",
      `${dir}/values.json`,
      "--pin",
      PIN,
      "--json",
    ]);
    assert.equal(json.code, 0, json.err);
    const receipt = JSON.parse(json.out);
    assert.deepEqual(Object.keys(receipt).sort(), ["editToken", "submissionId"]);
    assert.equal(relay.envelopes.size, 2);

    const first = relay.envelopes.get(/submissionId: ([0-9a-f]{32})/.exec(plain.out)![1])!;
    const payload = JSON.parse(new TextDecoder().decode(
      await open(fromBase64(first.ciphertext), recipient.publicKey, recipient.secretKey),
    ));
    assert.equal(payload.values.age, 7);
    assert.equal(payload.values.cv.mime, "application/pdf");
    assert.equal(payload.values.cv.fileName, "cv.pdf");
    assert.equal(
      new TextDecoder().decode(relay.blobs.get(payload.values.cv.hash)!.bytes),
      "%PDF-1.4 test",
    );
  } finally {
    await close();
  }
});

Deno.test("sealpost submit: a bare form id resolves against SEALPOST_URL", async () => {
  const { relay, dir, close } = await setup();
  Deno.env.set("SEALPOST_URL", relay.url);
  try {
    const r = await run(["contact", "--values", `${dir}/values.json`, "--pin", PIN, "--json"]);
    assert.equal(r.code, 0, r.err);
    assert.ok(relay.seen.some((s) => s.path === "/forms/contact/manifest"));
  } finally {
    Deno.env.delete("SEALPOST_URL");
    await close();
  }
});

Deno.test("sealpost submit: refusals exit 1 and name the problem", async () => {
  const { relay, dir, close } = await setup();
  try {
    const base = ["contact", "--relay", relay.url, "--values", `${dir}/values.json`];
    const otherPin = manifestKeyFingerprint(generateSigningKeyPair().publicKey);
    const unverified = await run([...base, "--pin", otherPin, "--json"]);
    assert.equal(unverified.code, 1);
    assert.equal(JSON.parse(unverified.err).error.code, "manifest_unverified");

    await Deno.writeTextFile(`${dir}/bad.json`, JSON.stringify({ age: "old", colour: "red" }));
    const invalid = await run([
      "contact",
      "--relay",
      relay.url,
      "--values",
      `${dir}/bad.json`,
      "--pin",
      PIN,
    ]);
    assert.equal(invalid.code, 1);
    assert.match(invalid.err, /^Refused \(invalid_values\):/);
    assert.match(invalid.err, / {2}email: Field "email" is required/);
    assert.match(invalid.err, / {2}age: Expected a number, got "old"/);
    assert.match(invalid.err, / {2}colour: Unknown field "colour"/);

    const unknown = await run([
      "nope",
      "--relay",
      relay.url,
      "--values",
      `${dir}/values.json`,
      "--pin",
      PIN,
      "--json",
    ]);
    assert.equal(unknown.code, 1);
    assert.deepEqual(JSON.parse(unknown.err).error.code, "not_found");

    const notFileField = await run([...base, "--pin", PIN, "--file", `email=${dir}/cv.pdf`]);
    assert.equal(notFileField.code, 1);
    assert.match(notFileField.err, /Field "email" is not an image or attachment field/);
    assert.equal(relay.envelopes.size, 0);
  } finally {
    await close();
  }
});

Deno.test("sealpost submit: usage errors exit 2, --help exits 0", async () => {
  const { relay, dir, close } = await setup();
  try {
    const help = await run(["--help"]);
    assert.equal(help.code, 0);
    assert.match(help.out, /^Usage: sealpost submit <formId\|manifest-url>/);
    const cases: [string[], RegExp][] = [
      [["--values", "v.json", "--pin", PIN], /Missing <formId\|manifest-url>/],
      [["contact", "--pin", PIN], /Missing --values FILE/],
      [["contact", "--values", `${dir}/values.json`], /Missing --pin/],
      [["contact", "--values", `${dir}/none.json`, "--pin", PIN], /Cannot read --values/],
      [["contact", "--values", `${dir}/cv.pdf`, "--pin", PIN], /is not JSON/],
      [
        ["contact", "--values", `${dir}/values.json`, "--pin", PIN, "--file", "cv"],
        /must be FIELD=PATH/,
      ],
      [["contact", "--bogus"], /Unknown option '--bogus'/],
      [["a", "b", "--values", "x", "--pin", PIN], /Expected one form, got 2/],
    ];
    for (const [args, message] of cases) {
      const r = await run(args);
      assert.equal(r.code, 2, args.join(" "));
      assert.match(r.err, message);
    }
    await Deno.writeTextFile(`${dir}/array.json`, "[1]");
    const arr = await run(["contact", "--values", `${dir}/array.json`, "--pin", PIN, "--json"]);
    assert.equal(arr.code, 2);
    assert.equal(JSON.parse(arr.err).error.code, "usage");
    assert.equal(relay.seen.length, 0);
  } finally {
    await close();
  }
});

Deno.test("mimeFromPath", () => {
  assert.equal(mimeFromPath("a/b/Photo.JPG"), "image/jpeg");
  assert.equal(mimeFromPath("x.pdf"), "application/pdf");
  assert.equal(mimeFromPath("noext"), "application/octet-stream");
});
