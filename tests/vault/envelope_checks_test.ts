import assert from "node:assert/strict";
import { z } from "zod";
import { formatIssues } from "../../src/errors/index.ts";
import { buildValuesSchema } from "../../src/forms/fields.ts";
import {
  checkFileEncryption,
  checkFilesStored,
  checkMode,
  MAX_REASON,
  ownedFiles,
  parsePayload,
  Quarantine,
} from "../../src/vault/envelope_checks.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const PAYLOAD = {
  values: { name: "Ada" },
  submittedAt: "2025-01-31T12:00:00.000Z",
  formVersion: 1,
  formSchema: "",
  mode: "Create" as const,
};

function quarantined(fn: () => unknown, code: string, reason: RegExp) {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof Quarantine, String(err));
    assert.equal(err.code, code);
    assert.match(err.message, reason);
    return true;
  });
}

Deno.test("formatIssues: every issue as path: message, cut to the limit", () => {
  const schema = z.object({ a: z.number(), b: z.object({ c: z.string() }) });
  const error = schema.safeParse({ a: "x", b: { c: 1 } }).error!;
  const text = formatIssues(error, "values", 1000);
  assert.match(text, /^values\.a: .*; values\.b\.c: /);
  assert.equal(formatIssues(error, "values", 20).length, 20);
  const whole = z.object({}).safeParse(5).error!;
  assert.doesNotMatch(formatIssues(whole, "", 100), /^:/);
});

Deno.test("invalid values name the field path, as docs/owner.md promises", () => {
  const schema = buildValuesSchema([{ id: "age", label: "Age", kind: "number" }], {
    mode: "strict",
  });
  const error = schema.safeParse({ age: "x", other: 1 }).error!;
  const text = formatIssues(error, "values", MAX_REASON);
  assert.match(text, /values\.other: Unknown field "other"/);
  assert.match(text, /values\.age: Expected a number/);
});

Deno.test("parsePayload: strict UTF-8, JSON, the payload's shape; unknown members dropped", () => {
  assert.deepEqual(parsePayload(encode(JSON.stringify({ ...PAYLOAD, extra: 1 }))), PAYLOAD);
  quarantined(() => parsePayload(new Uint8Array([0xff, 0x7b])), "invalid_payload", /UTF-8/);
  quarantined(() => parsePayload(encode("{")), "invalid_payload", /not valid JSON/);
  quarantined(
    () => parsePayload(encode("[".repeat(500_000) + "]".repeat(500_000))),
    "invalid_payload",
    /nested too deeply|expected object/,
  );
  quarantined(() => parsePayload(encode("7")), "invalid_payload", /expected object/i);
  quarantined(
    () => parsePayload(encode(JSON.stringify({ ...PAYLOAD, formVersion: 0 }))),
    "invalid_payload",
    /^formVersion: /,
  );
});

Deno.test("checkMode: Create on version 1, Update on amendments", () => {
  checkMode(PAYLOAD, 1);
  checkMode({ ...PAYLOAD, mode: "Update" }, 2);
  quarantined(() => checkMode({ ...PAYLOAD, mode: "Update" }, 1), "mode_mismatch", /first/);
  quarantined(() => checkMode(PAYLOAD, 3), "mode_mismatch", /amendment version 3/);
});

Deno.test("ownedFiles and checkFilesStored: only well-formed hashes; every missing field named", () => {
  const h = (c: string) => c.repeat(64);
  const values = {
    a: { url: "https://x/a", hash: h("a"), owned: true },
    b: { url: "https://x/b", hash: "A".repeat(64), owned: true },
    c: { url: "https://x/c", hash: "a".repeat(100_000), owned: true },
    d: { url: "https://x/d", owned: false },
    e: { url: "https://x/e", hash: h("e"), owned: true },
    f: null,
    g: "text",
  };
  const files = ownedFiles(values);
  assert.deepEqual(files, [{ field: "a", hash: h("a") }, { field: "e", hash: h("e") }]);
  checkFilesStored(files, new Set(), 1);
  quarantined(
    () => checkFilesStored(files, new Set([h("a"), h("e")]), 1),
    "file_not_uploaded",
    new RegExp(`^values\\.a: file ${h("a")} was never uploaded.*; values\\.e: file ${h("e")}`),
  );
});

Deno.test("checkFileEncryption: owned files are age-encrypted exactly when the form says so", () => {
  const h = "a".repeat(64);
  const sealed = { url: "https://x/a", hash: h, owned: true, sizeBytes: 3, encryption: "age" };
  const plain = { url: "https://x/b", hash: h, owned: true, mime: "image/png" };
  const external = { url: "https://example.com/c.png", owned: false };
  // What matches passes, and references the relay does not store are not its concern.
  checkFileEncryption({ a: sealed, c: external, n: null, t: "text" }, "encrypted", 2);
  checkFileEncryption({ b: plain, c: external }, "plain", 2);
  checkFileEncryption({}, "encrypted", 2);
  quarantined(
    () => checkFileEncryption({ a: sealed, b: plain, d: { ...plain } }, "encrypted", 2),
    "file_mode_mismatch",
    /^values\.b: the file is not encrypted \(no encryption: "age"\), but form version 2 says files: "encrypted"; the relay could read it; values\.d: /,
  );
  quarantined(
    () => checkFileEncryption({ b: plain, a: sealed }, "plain", 3),
    "file_mode_mismatch",
    /^values\.a: the file says encryption: "age", but form version 3 says files: "plain"$/,
  );
  // The reason keeps to the quarantine limit however many fields there are.
  const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, plain]));
  assert.throws(() => checkFileEncryption(many, "encrypted", 1), (err: Quarantine) => {
    assert.equal(err.formVersion, 1);
    return err.message.length === MAX_REASON;
  });
});
