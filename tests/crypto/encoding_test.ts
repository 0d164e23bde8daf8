import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import {
  base64DecodedLength,
  concatBytes,
  fromBase64,
  fromHex,
  isBase64,
  toBase64,
  toHex,
  utf8Decode,
  utf8Encode,
} from "../../src/crypto/encoding.ts";
import { CryptoError } from "../../src/crypto/errors.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("base64: RFC 4648 vectors", () => {
  const vectors: [string, string][] = [
    ["", ""],
    ["f", "Zg=="],
    ["fo", "Zm8="],
    ["foo", "Zm9v"],
    ["foob", "Zm9vYg=="],
    ["fooba", "Zm9vYmE="],
    ["foobar", "Zm9vYmFy"],
  ];
  for (const [plain, encoded] of vectors) {
    assert.equal(toBase64(bytes(plain)), encoded);
    assert.deepEqual(fromBase64(encoded), bytes(plain));
    assert.equal(isBase64(encoded), true);
    assert.equal(base64DecodedLength(encoded), plain.length);
  }
});

Deno.test("base64: agrees with Node's Buffer on every length up to 300 and on 4 MiB", () => {
  const sample = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 151 + 7) & 255);
  for (const n of [...Array(301).keys(), 4 << 20]) {
    const b = sample(n);
    const expected = Buffer.from(b).toString("base64");
    assert.equal(toBase64(b), expected);
    assert.deepEqual(fromBase64(expected), b);
  }
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  assert.deepEqual(fromBase64(toBase64(all)), all);
});

Deno.test("base64: strict decoding refuses everything but canonical standard base64", () => {
  const bad = [
    "Zg", // no padding
    "Zg=",
    "Zh==", // non-zero bits before the padding
    "Zm9=",
    "Zm9v\n",
    " Zm9v",
    "Zm9 v",
    "Zm-v", // URL-safe alphabet
    "Zm_v",
    "Zg==Zg==",
    "=Zg=",
    "Z===",
    "====",
    "Zm9v====",
    "Zm9vé===",
  ];
  for (const s of bad) {
    assert.equal(isBase64(s), false, s);
    assert.throws(() => fromBase64(s), (e) => {
      assert.ok(e instanceof CryptoError);
      assert.equal(e.code, "invalid_input");
      assert.match(e.message, /^Invalid base64 /);
      return true;
    }, s);
  }
  assert.throws(() => fromBase64(42 as unknown as string), /must be a string/);
  assert.equal(isBase64(42 as unknown as string), false);
});

Deno.test("base64: an error names the value and position", () => {
  assert.throws(
    () => fromBase64("Zm9v!A=="),
    /Invalid base64 "Zm9v!A==": unexpected character "!" at index 4/,
  );
  assert.throws(() => fromBase64("abc"), /length 3 is not a multiple of 4/);
});

Deno.test("hex", () => {
  assert.equal(toHex(new Uint8Array([0, 1, 0xab, 0xff])), "0001abff");
  assert.deepEqual(fromHex("0001abff"), new Uint8Array([0, 1, 0xab, 0xff]));
  assert.deepEqual(fromHex("CAFE"), new Uint8Array([0xca, 0xfe]));
  assert.deepEqual(fromHex(""), new Uint8Array(0));
  for (const s of ["abc", "zz", "0x00", "ab cd"]) {
    assert.throws(
      () => fromHex(s),
      (e) => e instanceof CryptoError && /Invalid hex/.test(e.message),
    );
  }
});

Deno.test("utf8: round trip, strict decoding", () => {
  const text = "Grüße, 世界 😀";
  assert.equal(utf8Decode(utf8Encode(text)), text);
  assert.deepEqual(utf8Encode("é"), new Uint8Array([0xc3, 0xa9]));
  for (const b of [[0xff], [0xc3], [0xed, 0xa0, 0x80]]) {
    assert.throws(() => utf8Decode(new Uint8Array(b)), /not valid UTF-8/);
  }
  // A BOM is content, not stripped.
  assert.equal(utf8Decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61])), "\ufeffa");
});

Deno.test("concatBytes", () => {
  assert.deepEqual(
    concatBytes(new Uint8Array([1]), new Uint8Array(0), new Uint8Array([2, 3])),
    new Uint8Array([1, 2, 3]),
  );
});

Deno.test("base64: decoding accepts exactly what isBase64 accepts, with the bytes Node decodes (runtime decoder or not)", () => {
  // Canonical encodings, then each damaged the ways senders damage them.
  const damaged = fc.tuple(fc.uint8Array({ maxLength: 64 }), fc.nat(), fc.nat()).map(
    ([bytes, at, how]) => {
      const text = toBase64(bytes);
      const i = text.length === 0 ? 0 : at % text.length;
      const edits = [
        () => text,
        () => text.replace(/=+$/, ""), // padding dropped
        () => `${text.slice(0, i)}\n${text.slice(i)}`, // a line break
        () => `${text.slice(0, i)}    ${text.slice(i)}`, // whitespace that keeps the length % 4
        () => text.replaceAll("+", "-").replaceAll("/", "_"), // URL-safe alphabet
        () => `${text.slice(0, i)}${"AB=+/é"[at % 6]}${text.slice(i + 1)}`, // one character
        () => `${text.slice(0, -4)}${["AAB=", "AB==", "AAA="][at % 3]}`, // bits after the data
      ];
      return edits[how % edits.length]();
    },
  );
  fc.assert(
    fc.property(damaged, (text) => {
      let decoded: Uint8Array | null = null;
      try {
        decoded = fromBase64(text);
      } catch (err) {
        assert.ok(err instanceof CryptoError && /^Invalid base64 /.test(err.message));
      }
      assert.equal(decoded !== null, isBase64(text), JSON.stringify(text));
      if (decoded) assert.deepEqual(decoded, new Uint8Array(Buffer.from(text, "base64")));
    }),
    { numRuns: 2000 },
  );
});
