import assert from "node:assert/strict";
import { FileRefSchema, MAX_FILE_REF_DEPTH, parseDataUri } from "../../src/forms/file_ref.ts";

const HASH = "0123456789abcdef".repeat(4);

Deno.test("FileRefSchema: the three shapes", () => {
  const owned = {
    url: "https://relay.example/submissions/blob/u1/" + HASH,
    hash: HASH,
    owned: true,
    fileName: "report.pdf",
    mime: "application/pdf",
    sizeBytes: 52_428_800,
  };
  const external = { url: "https://cdn.example/a.png", owned: false };
  const encrypted = { ...owned, encryption: "age" };
  assert.deepEqual(FileRefSchema.parse(encrypted), encrypted);
  const inline = { dataUri: "data:text/plain;base64,aGVsbG8=", fileName: "hello.txt" };
  for (const ref of [owned, external, inline, { url: "http://x.example/y" }]) {
    assert.deepEqual(FileRefSchema.parse(ref), ref);
  }
  // Unknown members survive.
  assert.deepEqual(FileRefSchema.parse({ ...external, width: 10 }), { ...external, width: 10 });
});

Deno.test("FileRefSchema: rejections name the member", () => {
  const cases: [string, unknown][] = [
    ["", {}],
    ["", { owned: true }],
    ["hash", { url: "https://x.example/a", owned: true }],
    ["hash", { url: "https://x.example/a", owned: true, hash: HASH.toUpperCase() }],
    ["hash", { url: "https://x.example/a", owned: false, hash: HASH }],
    ["url", { url: "javascript:alert(1)" }],
    ["url", { url: "/relative" }],
    ["sizeBytes", { url: "https://x.example/a", owned: true, hash: HASH, sizeBytes: 0 }],
    ["sizeBytes", { url: "https://x.example/a", owned: true, hash: HASH, sizeBytes: 52_428_801 }],
    ["sizeBytes", { url: "https://x.example/a", sizeBytes: 1.5 }],
    ["mime", { url: "https://x.example/a", mime: "pdf" }],
    ["fileName", { url: "https://x.example/a", fileName: "" }],
    ["dataUri", { dataUri: "data:text/plain,hello" }],
    ["dataUri", { dataUri: "data:;base64,aGVsbG8=" }],
    ["dataUri", { dataUri: "data:text/plain;base64,aGVsbG8" }],
    ["dataUri", { dataUri: "data:text/plain;base64," }],
    ["dataUri", { dataUri: "https://x.example/a" }],
    ["dataUri", { url: "https://x.example/a", dataUri: "data:text/plain;base64,aGk=" }],
    ["owned", { dataUri: "data:text/plain;base64,aGk=", owned: true }],
    ["mime", { dataUri: "data:text/plain;base64,aGk=", mime: "image/png" }],
    ["sizeBytes", { dataUri: "data:text/plain;base64,aGk=", sizeBytes: 3 }],
    ["", "https://x.example/a"],
    ["encryption", { url: "https://x.example/a", owned: true, hash: HASH, encryption: "gpg" }],
    ["encryption", { url: "https://x.example/a", encryption: "age" }],
    ["sizeBytes", { url: "https://x.example/a", owned: true, hash: HASH, encryption: "age" }],
  ];
  for (const [member, ref] of cases) {
    const r = FileRefSchema.safeParse(ref);
    assert.equal(r.success, false, JSON.stringify(ref));
    assert.ok(
      r.error!.issues.some((i) => i.path.join(".") === member),
      `${JSON.stringify(ref)}: ${JSON.stringify(r.error!.issues)}`,
    );
  }
});

Deno.test("parseDataUri", () => {
  assert.deepEqual(parseDataUri("data:image/png;base64,iVBORw0KGgo="), {
    mime: "image/png",
    sizeBytes: 8,
  });
  assert.equal(parseDataUri("data:image/png;base64,iVBORw0KGgo"), null);
  assert.equal(parseDataUri("data:image/png,abc"), null);
});

Deno.test("file refs: unknown members may nest at most MAX_FILE_REF_DEPTH levels", () => {
  const nested = (n: number): unknown => (n === 0 ? 1 : { a: nested(n - 1) });
  const ref = { url: "https://example.com/a.png", owned: false };
  // The ref itself is level 0; `extra` and its members go MAX_FILE_REF_DEPTH deep.
  assert.ok(FileRefSchema.safeParse({ ...ref, extra: nested(MAX_FILE_REF_DEPTH - 1) }).success);
  const deep = FileRefSchema.safeParse({ ...ref, extra: nested(5000) });
  assert.equal(deep.success, false);
  assert.match(deep.error!.issues[0].message, /nests more than 8 levels/);
});
