/**
 * Forms describe themselves: docs/forms.md lists every kind with exactly the options the zod
 * schemas accept, its examples validate, the OpenAPI document carries the full field-definition
 * schema, and `form create --help` shows an example that validates.
 */
import assert from "node:assert/strict";
import { buildValuesSchema, FIELD_KINDS, FieldsSchema } from "../../src/forms/fields.ts";
import { renderDefault, resolveValues } from "../../src/webhooks/index.ts";
import { csvCell, csvHeader, csvValue } from "../../src/vault/csv.ts";
import { sealpost } from "../_support/cli.ts";
import { startInstance } from "../_support/server.ts";

const DOC = await Deno.readTextFile(new URL("../../docs/forms.md", import.meta.url));
const BASE = new Set(["id", "label", "kind", "description", "required"]);

function jsonBlocks(text: string): unknown[] {
  return [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]));
}

/** The options the docs' kinds table lists for `kind`. */
function documentedOptions(kind: string): string[] {
  const row = DOC.split("\n").find((line) => line.startsWith(`| \`${kind}\` `));
  assert.ok(row, `docs/forms.md has a row for ${kind}`);
  const cell = row.split("|")[2];
  return [...cell.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]).sort();
}

Deno.test("docs/forms.md: every kind with exactly its schema's options (from OpenAPI)", async () => {
  const inst = await startInstance();
  try {
    const doc = await (await fetch(`${inst.url}/openapi.json`)).json();
    const schema = doc.components.schemas.FieldDefinition;
    assert.equal(schema.oneOf.length, FIELD_KINDS.length);
    for (const variant of schema.oneOf) {
      const kind = variant.properties.kind.const;
      assert.deepEqual(
        variant.required,
        kind === "choice" ? ["id", "label", "kind", "options"] : ["id", "label", "kind"],
      );
      const options = Object.keys(variant.properties).filter((k) => !BASE.has(k)).sort();
      assert.deepEqual(documentedOptions(kind), options, kind);
    }
    for (const name of ["VaultForm", "VaultFormVersion"]) {
      assert.equal(
        doc.components.schemas[name].properties.fields.items.$ref,
        "#/components/schemas/FieldDefinition",
      );
    }
  } finally {
    await inst.close();
  }
});

Deno.test("docs/forms.md: the example fields, values and webhook body agree", async () => {
  const [fields, values, body] = jsonBlocks(DOC) as [
    unknown,
    Record<string, unknown>,
    Record<string, unknown>,
  ];
  const parsed = FieldsSchema.parse(fields);
  assert.deepEqual(new Set(parsed.map((f) => f.kind)), new Set(FIELD_KINDS));
  const ids = parsed.map((f) => f.id);
  assert.deepEqual(
    buildValuesSchema(parsed, { mode: "strict" }).parse(values),
    values,
  );
  assert.deepEqual(Object.keys(body), ["_recordId", "_formId", "_savedAt", "_reason", ...ids]);
  // The default body, rendered by the webhook renderer (the file URL as the docs show it).
  const input = await resolveValues(
    {
      recordId: body._recordId as string,
      formId: body._formId as string,
      savedAt: body._savedAt as string,
      reason: "insert",
      values,
    },
    parsed,
    { blobUrl: () => Promise.resolve(body.photo as string), blobUrlLifetimeSeconds: 60 },
  );
  assert.deepEqual(JSON.parse(renderDefault(input, {})), body);
  const header = /`(_recordId,_formId,_savedAt,[^`]+)`/.exec(DOC)![1];
  assert.equal(header + "\r\n", csvHeader(ids));
  const row = /```text\n(.*)\n```/.exec(DOC)![1];
  assert.ok(row.endsWith("," + ids.map((id) => csvCell(csvValue(values[id]))).join(",")), row);
});

Deno.test("form create --help shows a fields example that validates", async () => {
  const help = await sealpost(["form", "create", "--help"]);
  assert.equal(help.code, 0, help.stderr);
  const example = /\n {2}\[\n[\s\S]*?\n {2}\]\n/.exec(help.stdout);
  assert.ok(example, help.stdout);
  const fields = FieldsSchema.parse(JSON.parse(example[0]));
  assert.ok(fields.length >= 3);
  assert.match(help.stdout, /docs\/forms\.md/);
  assert.match(help.stdout, /sealpost form create --db <databaseId> .*--fields fields\.json/);
});
