/**
 * Every field kind's accepted and rejected values, in the vault's strict mode and the
 * sender's coerce mode, plus the rules shared by all kinds.
 */
import assert from "node:assert/strict";
import {
  buildValuesSchema,
  FIELD_KINDS,
  type FieldDef,
  FieldDefSchema,
  FieldsSchema,
} from "../../src/forms/fields.ts";

const HASH = "a".repeat(64);
const OWNED = {
  url: "https://relay.example/submissions/blob/u1/" + HASH,
  hash: HASH,
  owned: true,
  fileName: "cat.png",
  mime: "image/png",
  sizeBytes: 1234,
};

interface Case {
  field: FieldDef;
  /** Valid as they are, in both modes. */
  accepted: unknown[];
  /** Invalid in both modes. */
  rejected: unknown[];
  /** Invalid strictly, turned into the given value by coerce mode. */
  coerced: [unknown, unknown][];
}

const f = <T extends FieldDef["kind"]>(kind: T, extra: Record<string, unknown> = {}) =>
  ({ id: "v", label: "V", kind, ...extra }) as FieldDef;

const CASES: Case[] = [
  {
    field: f("text", { minLength: 2, maxLength: 5 }),
    // Lengths in code points: a surrogate pair is one, a lone surrogate one.
    accepted: ["ab", "abcde", "héé", "😀😀", "😀😀😀😀😀", "a\ud800", "\udc00\ud800b"],
    rejected: ["a", "abcdef", "😀", "😀😀😀😀😀😀", "\ud800", "😀\ud800😀\udc00😀😀", ["ab"], {
      a: 1,
    }],
    coerced: [[42, "42"], [true, "true"]],
  },
  {
    field: f("text", { pattern: "[A-Z]{2}-\\d+" }),
    accepted: ["AB-1", "ZZ-123"],
    rejected: ["ab-1", "AB-1x", "xAB-1", "AB-"],
    coerced: [],
  },
  {
    field: f("email"),
    accepted: ["a@example.com", "first.last+tag@sub.example.org"],
    rejected: ["a@", "@example.com", "a example.com", "a@example", 5, "a@@example.com"],
    coerced: [["  a@example.com ", "a@example.com"]],
  },
  {
    field: f("url"),
    accepted: ["https://example.com", "http://127.0.0.1:8080/a?b=c#d"],
    rejected: [
      "example.com",
      "javascript:alert(1)",
      "ftp://example.com",
      "https://",
      7,
      "https://a b",
    ],
    coerced: [[" https://example.com/x ", "https://example.com/x"]],
  },
  {
    field: f("phone"),
    accepted: ["+49 30 1234567", "(555) 123-4567", "112", "+1.555.123.4567"],
    rejected: ["12", "call me", "+49 30 12345678901234567890", "555-CALL", "++49 30"],
    coerced: [[" +49 30 123 ", "+49 30 123"], [5551234, "5551234"]],
  },
  {
    field: f("richText", { maxLength: 20 }),
    accepted: ["<b>bold</b>", "line\nbreak"],
    rejected: ["x".repeat(21), ["a"], {}],
    coerced: [[3.5, "3.5"]],
  },
  {
    field: f("number", { min: -10, max: 100 }),
    accepted: [0, -10, 100, 3.25, -0.5],
    rejected: [101, -11, NaN, Infinity, "abc", "0x10", "1,5", true, [1]],
    coerced: [["42", 42], [" 3.5 ", 3.5], ["-1e1", -10], [".5", 0.5]],
  },
  {
    field: f("number", { integer: true }),
    accepted: [0, 7, -3, 1e6],
    rejected: [1.5, "1.5"],
    coerced: [["12", 12]],
  },
  {
    field: f("boolean"),
    accepted: [true, false],
    rejected: ["maybe", 2, {}, "truthy"],
    coerced: [["true", true], ["FALSE", false], ["yes", true], ["off", false], ["1", true], [
      0,
      false,
    ], [1, true]],
  },
  {
    field: f("date", { min: "2000-01-01", max: "2030-12-31" }),
    accepted: ["2024-02-29", "2000-01-01", "2030-12-31"],
    rejected: [
      "2023-02-29",
      "2024-13-01",
      "2024-1-1",
      "1999-12-31",
      "2031-01-01",
      "2024-01-01T00:00Z",
      20240101,
    ],
    coerced: [[" 2024-05-06 ", "2024-05-06"], [new Date("2024-05-06T12:00:00Z"), "2024-05-06"]],
  },
  {
    field: f("dateTime", { min: "2020-01-01T00:00:00Z" }),
    accepted: [
      "2024-05-06T07:08:09Z",
      "2024-05-06T07:08Z",
      "2024-05-06T07:08:09.123456789+02:00",
      "2024-05-06T23:59:59-11:30",
    ],
    rejected: [
      "2024-05-06T07:08:09", // no offset
      "2024-05-06",
      "2024-05-06T24:00:00Z",
      "2024-02-30T00:00:00Z",
      "2019-12-31T23:59:59Z", // before min
      "2020-01-01T01:00:00+02:00", // 2019-12-31T23:00Z, before min
      1714979289000,
    ],
    coerced: [
      ["2024-05-06 07:08:09z", "2024-05-06T07:08:09Z"],
      [new Date("2024-05-06T07:08:09.000Z"), "2024-05-06T07:08:09.000Z"],
    ],
  },
  {
    field: f("choice", { options: ["red", "green", "blue"] }),
    accepted: ["red", "blue"],
    rejected: ["Red", "purple", ["red"], 1],
    coerced: [[" green ", "green"]],
  },
  {
    field: f("choice", { options: ["a", "b", "c", "1"], multiple: true, maxItems: 2 }),
    accepted: [["a"], ["a", "c"]],
    rejected: [["a", "b", "c"], ["x"], ["a", "z"], { a: true }],
    coerced: [["b", ["b"]], [["a", "a"], ["a"]], [[" a", "b "], ["a", "b"]], [1, ["1"]]],
  },
  {
    field: f("list", { maxItems: 3, maxItemLength: 5 }),
    accepted: [["x"], ["a", "b", "c"]],
    rejected: [["a", "b", "c", "d"], ["toolong"], [{}], "a,b,c,d"],
    coerced: [["a, b ,c", ["a", "b", "c"]], [["", " b", " "], ["b"]], [[1, 2], ["1", "2"]]],
  },
  {
    field: f("geo"),
    accepted: [{ lat: 52.52, lng: 13.405 }, { lat: -90, lng: 180 }, { lat: 0, lng: 0 }],
    rejected: [
      { lat: 91, lng: 0 },
      { lat: 0, lng: -181 },
      { lat: 1 },
      { lat: 1, lng: 2, alt: 3 },
      [52.5, 13.4],
      "north",
      "1,2,3",
      { lat: NaN, lng: 0 },
    ],
    coerced: [
      ["52.52,13.405", { lat: 52.52, lng: 13.405 }],
      [" -33.9 , 151.2 ", { lat: -33.9, lng: 151.2 }],
      [{ lat: "1.5", lng: "2" }, { lat: 1.5, lng: 2 }],
    ],
  },
  {
    field: f("image", { accept: ["image/*"], maxSizeBytes: 2000 }),
    accepted: [
      OWNED,
      { url: "https://cdn.example/cat.png", owned: false },
      { url: "https://cdn.example/cat.png" },
      { dataUri: "data:image/gif;base64,R0lGODlhAQABAAAAACw=" },
    ],
    rejected: [
      { ...OWNED, mime: "application/pdf" },
      { ...OWNED, sizeBytes: 2001 },
      { dataUri: "data:text/plain;base64,aGk=" },
      { ...OWNED, hash: "A".repeat(64) },
      "https://cdn.example/cat.png",
    ],
    coerced: [],
  },
  {
    field: f("attachment"),
    accepted: [
      { ...OWNED, mime: "application/pdf", fileName: "a.pdf" },
      { url: "https://example.com/a.pdf", owned: false, fileName: "a.pdf", sizeBytes: 99 },
      { dataUri: "data:text/plain;base64,aGk=", fileName: "hi.txt", mime: "text/plain" },
    ],
    rejected: [
      { url: "https://x.example/a", owned: true },
      { hash: HASH, owned: true },
      { owned: false },
      {},
      { dataUri: "data:text/plain,hi" },
      { dataUri: "data:text/plain;base64,aGk" },
      { url: "https://x.example/a", dataUri: "data:text/plain;base64,aGk=" },
    ],
    coerced: [],
  },
];

const strictOf = (field: FieldDef) => buildValuesSchema([field], { mode: "strict" });
const coerceOf = (field: FieldDef) => buildValuesSchema([field], { mode: "coerce" });

Deno.test("every kind has cases and a valid definition", () => {
  const covered = new Set(CASES.map((c) => c.field.kind));
  assert.deepEqual([...covered].sort(), [...FIELD_KINDS].sort());
  for (const c of CASES) FieldDefSchema.parse(c.field);
});

for (const c of CASES) {
  const name = `${c.field.kind} ${JSON.stringify(c.field).slice(0, 80)}`;
  Deno.test(`values: ${name}`, async (t) => {
    await t.step("accepted as is in both modes", () => {
      for (const v of c.accepted) {
        assert.deepEqual(strictOf(c.field).parse({ v }), { v }, `strict ${JSON.stringify(v)}`);
        assert.deepEqual(coerceOf(c.field).parse({ v }), { v }, `coerce ${JSON.stringify(v)}`);
      }
    });
    await t.step("rejected in both modes, naming the field", () => {
      for (const v of c.rejected) {
        for (const schema of [strictOf(c.field), coerceOf(c.field)]) {
          const r = schema.safeParse({ v });
          assert.equal(r.success, false, `accepted ${JSON.stringify(v)}`);
          assert.deepEqual(r.error!.issues[0].path, ["v"]);
          assert.match(r.error!.issues[0].message, /^[A-Z]/);
        }
      }
    });
    await t.step("coerced by the sender, refused strictly", () => {
      for (const [input, output] of c.coerced) {
        assert.equal(strictOf(c.field).safeParse({ v: input }).success, false, String(input));
        const coerced = coerceOf(c.field).parse({ v: input });
        assert.deepEqual(coerced, { v: output });
        // What the SDK sends, the vault accepts unchanged.
        assert.deepEqual(strictOf(c.field).parse(coerced), coerced);
      }
    });
  });
}

Deno.test("required and optional fields, empty values", () => {
  const fields: FieldDef[] = [
    { id: "name", label: "Name", kind: "text", required: true },
    { id: "tags", label: "Tags", kind: "list", required: true },
    { id: "note", label: "Note", kind: "text" },
    { id: "age", label: "Age", kind: "number" },
  ];
  const strict = buildValuesSchema(fields, { mode: "strict" });
  const coerce = buildValuesSchema(fields, { mode: "coerce" });

  assert.deepEqual(strict.parse({ name: "Ada", tags: ["x"] }), {
    name: "Ada",
    tags: ["x"],
    note: null,
    age: null,
  });
  assert.deepEqual(coerce.parse({ name: "Ada", tags: "x", note: "  ", age: "" }), {
    name: "Ada",
    tags: ["x"],
  });
  for (const empty of [undefined, null, "", "   ", []]) {
    for (const schema of [strict, coerce]) {
      const r = schema.safeParse({ name: empty, tags: ["x"] });
      assert.equal(r.success, false);
      assert.deepEqual(r.error!.issues.map((i) => [i.path, i.message]), [
        [["name"], 'Field "name" is required'],
      ]);
    }
  }
  const r = coerce.safeParse({ tags: " , ," });
  assert.deepEqual(r.error!.issues.map((i) => i.path[0]).sort(), ["name", "tags"]);
});

Deno.test("unknown keys and non-object values are rejected", () => {
  const schema = buildValuesSchema([{ id: "a", label: "A", kind: "text" }], { mode: "strict" });
  const r = schema.safeParse({ a: "x", b: "y" });
  assert.equal(r.success, false);
  assert.deepEqual(r.error!.issues[0].path, ["b"]);
  assert.equal(r.error!.issues[0].message, 'Unknown field "b"');
  for (const bad of [null, [], "x", 1]) assert.equal(schema.safeParse(bad).success, false);
  // An inherited property is not a value.
  assert.deepEqual(schema.parse(Object.create({ a: "x" })), { a: null });
});

Deno.test("field definitions are checked", () => {
  const bad: unknown[] = [
    { id: "1a", label: "x", kind: "text" },
    { id: "_meta", label: "x", kind: "text" },
    { id: "a", label: "x", kind: "colour" },
    { id: "a", label: "x", kind: "text", pattern: "(" },
    { id: "a", label: "x", kind: "text", minLength: 5, maxLength: 2 },
    { id: "a", label: "x", kind: "number", min: 5, max: 2 },
    { id: "a", label: "x", kind: "date", min: "2024-02-30" },
    { id: "a", label: "x", kind: "dateTime", min: "2024-01-02T00:00Z", max: "2024-01-01T00:00Z" },
    { id: "a", label: "x", kind: "choice", options: [] },
    { id: "a", label: "x", kind: "choice", options: ["x", "x"] },
    { id: "a", label: "x", kind: "image", accept: ["png"] },
    { id: "a", label: "x", kind: "attachment", maxSizeBytes: 52_428_801 },
  ];
  for (const def of bad) {
    assert.equal(FieldDefSchema.safeParse(def).success, false, JSON.stringify(def));
  }
  const dup = FieldsSchema.safeParse([
    { id: "a", label: "A", kind: "text" },
    { id: "a", label: "B", kind: "geo" },
  ]);
  assert.equal(dup.success, false);
  assert.match(dup.error!.issues[0].message, /Duplicate field id "a"/);
  // Unknown members of a definition are kept (forward compatibility, signature coverage).
  assert.deepEqual(FieldDefSchema.parse({ id: "a", label: "A", kind: "geo", hint: "map" }), {
    id: "a",
    label: "A",
    kind: "geo",
    hint: "map",
  });
});
