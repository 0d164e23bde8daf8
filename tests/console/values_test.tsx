/**
 * How values show in the console: text escaped, raster images inline through fresh URLs, SVG,
 * HTML and every other file as a download, never inline.
 */
import assert from "node:assert/strict";
import type { FieldDef } from "../../src/forms/fields.ts";
import { Value, valueText } from "../../src/console/values.tsx";

const image: FieldDef = { id: "p", label: "P", kind: "image" };
const file: FieldDef = { id: "f", label: "F", kind: "attachment" };
const text: FieldDef = { id: "t", label: "T", kind: "text" };
const urls = new Map([["a".repeat(64), "http://relay/blob?sig=1"]]);
const show = (field: FieldDef, value: unknown) =>
  String(<Value field={field} value={value} urls={urls} />);

Deno.test("a hostile text value is text", () => {
  assert.equal(
    show(text, "<img src=x onerror=alert(1)>"),
    "&lt;img src=x onerror=alert(1)&gt;",
  );
});

Deno.test("raster images inline through their fresh URL; SVG and HTML only as downloads", () => {
  const owned = (mime: string, fileName: string) => ({
    url: "http://relay/stored",
    hash: "a".repeat(64),
    owned: true,
    mime,
    fileName,
  });
  assert.equal(
    show(image, owned("image/png", "a.png")),
    '<img class="inline" src="http://relay/blob?sig=1" alt="Image a.png">',
  );
  for (
    const [field, mime, name] of [
      [image, "image/svg+xml", "x.svg"],
      [image, "text/html", "x.html"],
      [file, "image/png", "x.png"],
      [file, "text/html", "x.html"],
    ] as const
  ) {
    const html = show(field, owned(mime, name));
    assert.ok(!html.includes("<img"), html);
    assert.equal(
      html,
      `<a href="http://relay/blob?sig=1" download="${name}" rel="noopener noreferrer">` +
        `Download ${name}</a>`,
    );
  }
  // An owned file the relay has no URL for, an external URL, inline data.
  assert.equal(
    show(image, { ...owned("image/png", "gone.png"), hash: "b".repeat(64) }),
    "<span>gone.png (file not available)</span>",
  );
  assert.match(
    show(image, { url: "https://elsewhere/x.png", owned: false }),
    /^<a href="https:\/\/elsewhere\/x.png" download="file"/,
  );
  assert.equal(
    show(image, { dataUri: "data:image/gif;base64,R0lGODlhAQABAAAAACw=" }),
    '<img class="inline" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Image file">',
  );
  assert.equal(
    show(image, { dataUri: "data:image/svg+xml;base64,PHN2Zz4=" }),
    "<span>file (inline data, image/svg+xml)</span>",
  );
});

Deno.test("valueText: lists, booleans, geo, empty", () => {
  assert.equal(valueText(["a", "b"]), "a, b");
  assert.equal(valueText(true), "Yes");
  assert.equal(valueText(false), "No");
  assert.equal(valueText({ lat: 1.5, lng: -2 }), "1.5, -2");
  assert.equal(valueText(null), "");
  assert.equal(valueText(42), "42");
});
