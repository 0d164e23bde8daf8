/**
 * FormFields (src/web/form/fields.tsx): one native control per field kind with a `<label
 * for>` naming it, errors marked for assistive technology, values prefilled.
 */
import assert from "node:assert/strict";
import type { FieldDef } from "../../src/forms/fields.ts";
import { FormFields, offsetText, UTC_OFFSETS } from "../../src/web/form/fields.tsx";
import { valueText } from "../../src/web/form/values.ts";
import { ALL_FIELDS } from "./_fixture.ts";

const fields = ALL_FIELDS as FieldDef[];
const render = (props: Parameters<typeof FormFields>[0]) => String(FormFields(props));

Deno.test("every field kind gets its native control, each with a label tied to it", () => {
  const html = render({ fields });
  const control: Record<string, RegExp> = {
    name: /<input id="sp-name" name="name" type="text"/,
    email: /<input id="sp-email" name="email" type="email"/,
    site: /<input id="sp-site" name="site" type="url"/,
    phone: /<input id="sp-phone" name="phone" type="tel"/,
    bio: /<textarea id="sp-bio" name="bio"/,
    age: /<input id="sp-age" name="age" type="number"[^>]*step="1"/,
    agree: /<input id="sp-agree" name="agree" type="checkbox"/,
    day: /<input id="sp-day" name="day" type="date"/,
    when: /<input id="sp-when" name="when" type="datetime-local"/,
    size: /<input id="sp-size-0" name="size" type="radio" value="S"/,
    colors: /<input id="sp-colors-1" name="colors" type="checkbox" value="green"/,
    tags: /<input id="sp-tags" name="tags" type="text"/,
    place: /<input id="sp-place-lat" name="place-lat" type="number"/,
    photo: /<input id="sp-photo" name="photo" type="file" accept="image\/\*"/,
    cv: /<input id="sp-cv" name="cv" type="file" accept="application\/pdf"/,
  };
  for (const [id, re] of Object.entries(control)) assert.match(html, re, id);
  // Every labelled id exists, and every input, select and textarea has a label.
  const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]));
  const fors = [...html.matchAll(/<label[^>]* for="([^"]+)"/g)].map((m) => m[1]);
  for (const f of fors) assert.ok(ids.has(f), `label for ${f}`);
  const controls = [...html.matchAll(/<(input|select|textarea) id="([^"]+)"/g)].map((m) => m[2]);
  assert.ok(controls.length >= 18);
  for (const c of controls) assert.ok(fors.includes(c), `control ${c} has a label`);
  assert.match(html, /<legend>Size<\/legend>/);
  assert.match(html, /<button type="button" class="secondary" data-action="locate"/);
  assert.match(html, /<progress id="sp-photo-progress"/);
  assert.doesNotMatch(html, /key=/);
});

Deno.test("errors are shown next to their field and named by aria-describedby", () => {
  const html = render({ fields, errors: { email: "Expected an email address" } });
  assert.match(
    html,
    /<input id="sp-email" name="email" type="email" value="" autocomplete="email" aria-describedby="sp-email-err" aria-invalid="true" aria-required="true"/,
  );
  assert.match(html, /<p class="error" id="sp-email-err"\s*>Expected an email address<\/p>/);
  assert.match(html, /<p class="error" id="sp-name-err" hidden=""><\/p>/);
  // The description stays described too.
  const bio = render({ fields, errors: { bio: "Too long" } });
  assert.match(bio, /aria-describedby="sp-bio-desc sp-bio-err"/);
});

Deno.test("values prefill their controls; ids take the prefix", () => {
  const html = render({
    fields,
    idPrefix: "pv-",
    values: {
      name: "Ada <Lovelace>",
      agree: true,
      when: "2025-06-01T10:00+05:45",
      size: "M",
      colors: ["red"],
      tags: ["a", "b"],
      place: { lat: 51.5, lng: -0.12 },
      photo: { url: "https://x.example/a", owned: false, fileName: "me.png" },
    },
  });
  assert.match(html, /id="pv-name" name="name" type="text" value="Ada &lt;Lovelace&gt;"/);
  assert.match(html, /id="pv-agree" name="agree" type="checkbox" checked(="")?/);
  assert.match(html, /type="datetime-local" value="2025-06-01T10:00"/);
  assert.match(html, /<option value="\+05:45" selected(="")?\s*>/);
  assert.match(html, /id="pv-size-1" name="size" type="radio" value="M" checked(="")?/);
  assert.match(html, /id="pv-colors-0" name="colors" type="checkbox" value="red" checked(="")?/);
  assert.match(html, /id="pv-tags" name="tags" type="text" value="a, b"/);
  assert.match(html, /id="pv-place-lng"[^>]*value="-0.12"/);
  assert.match(html, /Current file: me.png/);
});

Deno.test("a choice of many options is a select; offsets and value texts", () => {
  const options = Array.from({ length: 12 }, (_, i) => `o${i}`);
  const html = render({ fields: [{ id: "c", label: "C", kind: "choice", options }] });
  assert.match(html, /<select id="sp-c" name="c"/);
  assert.equal(offsetText(345), "+05:45");
  assert.equal(offsetText(-210), "-03:30");
  assert.equal(offsetText(0), "+00:00");
  assert.ok(UTC_OFFSETS.includes("-12:00") && UTC_OFFSETS.includes("+14:00"));
  assert.equal(valueText({ id: "g", label: "G", kind: "geo" }, { lat: 1, lng: 2 }), "1,2");
  assert.equal(valueText({ id: "t", label: "T", kind: "text" }, null), "");
});
