import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeUtf8 } from "../../src/http/utf8.ts";

const fatal = new TextDecoder("utf-8", { fatal: true });
/** What a fatal decoder answers: the text, or null where it throws. */
const reference = (bytes: Uint8Array) => {
  try {
    return fatal.decode(bytes);
  } catch {
    return null;
  }
};

Deno.test("decodeUtf8: the text of valid UTF-8, null where a fatal decoder refuses", () => {
  const cases: [number[], string | null][] = [
    [[0x68, 0x69], "hi"],
    [[0xef, 0xbb, 0xbf, 0x61], "a"], // a leading byte order mark is dropped
    [[0xc3, 0xbc], "ü"],
    [[0xf0, 0x9f, 0x94, 0x92], "🔒"],
    [[0xff], null],
    [[0xc0, 0xaf], null], // overlong "/"
    [[0xed, 0xa0, 0x80], null], // a surrogate
    [[0xf4, 0x90, 0x80, 0x80], null], // past U+10FFFF
    [[0xe2, 0x82], null], // cut short
    [[], ""],
  ];
  for (const [bytes, text] of cases) {
    assert.equal(decodeUtf8(Uint8Array.from(bytes)), text, JSON.stringify(bytes));
    assert.equal(reference(Uint8Array.from(bytes)), text, "as the fatal decoder answers");
  }
});

Deno.test("decodeUtf8: answers as a fatal TextDecoder does, for any bytes (property)", () => {
  const utf8 = new TextEncoder();
  // Random bytes are mostly invalid; encoded strings with a byte changed are mostly valid.
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 64 }),
    fc.tuple(fc.string({ unit: "grapheme", maxLength: 32 }), fc.nat(), fc.nat({ max: 255 })).map(
      ([s, at, value]) => {
        const b = utf8.encode(s);
        if (b.length > 0) b[at % b.length] = value;
        return b;
      },
    ),
  );
  fc.assert(
    fc.property(bytes, (b) => assert.equal(decodeUtf8(b), reference(b))),
    { numRuns: 2000 },
  );
});
