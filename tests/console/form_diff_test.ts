/**
 * What changed between two schema versions.
 */
import assert from "node:assert/strict";
import { diffVersions } from "../../src/console/form_diff.ts";

Deno.test("diffVersions: added, removed, changed option by option, order, title", () => {
  const v1 = {
    title: "A",
    fields: [
      { id: "name", kind: "text", label: "Name" },
      { id: "age", kind: "number", label: "Age", min: 0 },
      { id: "old", kind: "boolean", label: "Old" },
    ],
  };
  assert.deepEqual(diffVersions(null, v1).map((c) => c.text), [
    'Added field "name" (text)',
    'Added field "age" (number)',
    'Added field "old" (boolean)',
  ]);
  const v2 = {
    title: "B",
    fields: [
      { id: "age", kind: "number", label: "Age", max: 9 },
      { id: "name", kind: "text", label: "Name", required: true },
      { id: "new", kind: "geo", label: "Where" },
    ],
  };
  assert.deepEqual(diffVersions(v1, v2), [
    { kind: "title", text: 'Title "A" → "B"' },
    { kind: "changed", text: 'Field "age": min 0 → unset, max unset → 9' },
    { kind: "changed", text: 'Field "name": required unset → true' },
    { kind: "added", text: 'Added field "new" (geo)' },
    { kind: "removed", text: 'Removed field "old"' },
    { kind: "moved", text: "Field order: age, name" },
  ]);
  assert.deepEqual(diffVersions(v1, v1), []);
});
