/**
 * The builder's form body read into field definitions and its two switches, and its add /
 * remove / move-up buttons.
 */
import assert from "node:assert/strict";
import {
  applyAction,
  NEW_FORM_SETTINGS,
  readAction,
  readDraft,
  readSettings,
} from "../../src/console/builder_form.ts";
import { FieldsSchema } from "../../src/forms/fields.ts";
import { builderBody, EVERY_KIND } from "./_fixture.ts";

Deno.test("readDraft: every kind's options, typed; blanks left out; kind-foreign options ignored", () => {
  const fields = readDraft(builderBody("T", EVERY_KIND, "preview"));
  assert.equal(fields.length, EVERY_KIND.length);
  assert.deepEqual(fields[0], {
    id: "name",
    kind: "text",
    label: "Name",
    required: true,
    maxLength: 200,
    pattern: ".+",
  });
  assert.deepEqual(fields[5], {
    id: "age",
    kind: "number",
    label: "Age",
    min: 0,
    max: 150,
    integer: true,
  });
  assert.deepEqual(fields[7], { id: "born", kind: "date", label: "Born", min: "1800-01-01" });
  assert.deepEqual(fields[13].accept, ["image/*"]);
  assert.deepEqual(fields[14].accept, ["application/pdf", "text/plain"]);
  assert.deepEqual(fields[9].options, ["question", "bug", "praise"]);
  FieldsSchema.parse(fields);
  // An option of another kind is not read (a "pattern" posted for a number).
  const odd = readDraft({ "f.0.id": "n", "f.0.kind": "number", "f.0.pattern": "x", "f.0.min": "" });
  assert.deepEqual(odd, [{ id: "n", kind: "number", label: "" }]);
  // An unknown kind falls back to text; a non-number bound stays text for the schema to refuse.
  const bad = readDraft({ "f.0.id": "n", "f.0.kind": "nope", "f.0.maxLength": "ten" });
  assert.deepEqual(bad, [{ id: "n", kind: "text", label: "", maxLength: "ten" }]);
  assert.equal(FieldsSchema.safeParse(bad).success, false);
});

Deno.test("builder buttons: add a field of a kind, remove, move up; order by index", () => {
  const body = {
    "f.10.id": "b",
    "f.10.kind": "text",
    "f.2.id": "a",
    "f.2.kind": "text",
  };
  const fields = readDraft(body);
  assert.deepEqual(fields.map((f) => f.id), ["a", "b"]);
  const added = applyAction(fields, readAction({ action: "add", newKind: "choice" }));
  assert.deepEqual(added[2], {
    id: "field3",
    kind: "choice",
    label: "Field 3",
    options: ["first", "second"],
  });
  assert.deepEqual(applyAction(added, readAction({ action: "up:2" })).map((f) => f.id), [
    "a",
    "field3",
    "b",
  ]);
  assert.deepEqual(applyAction(added, readAction({ action: "remove:0" })).map((f) => f.id), [
    "b",
    "field3",
  ]);
  assert.deepEqual(applyAction(added, readAction({ action: "up:0" })), added, "first stays");
  assert.deepEqual(readAction({ action: "publish" }), { kind: "publish" });
  assert.deepEqual(readAction({ action: "anything" }), { kind: "preview" });
  assert.deepEqual(readAction({ action: "add", newKind: "bogus" }), {
    kind: "add",
    fieldKind: "text",
  });
});

Deno.test("readSettings: a checked box is on, an unposted one off; a new form encrypts files", () => {
  assert.deepEqual(NEW_FORM_SETTINGS, { files: "encrypted", drafts: false });
  assert.deepEqual(readSettings({ encryptFiles: "on" }), { files: "encrypted", drafts: false });
  assert.deepEqual(readSettings({ drafts: "on" }), { files: "plain", drafts: true });
  assert.deepEqual(readSettings({ encryptFiles: "yes", drafts: "" }), {
    files: "plain",
    drafts: false,
  });
});
