/**
 * The webhook editor's form read into create and edit requests, and the body preview.
 */
import assert from "node:assert/strict";
import {
  createFromForm,
  mappingLines,
  parseMappings,
  patchFromForm,
  previewBody,
} from "../../src/console/webhook_form.ts";
import { Invalid } from "../../src/errors/index.ts";

const BASE = {
  name: "CRM",
  url: "https://example.com/hook",
  method: "POST",
  mode: "default",
  template: "ignored in default mode",
  mappings: "name = fullName\n\nage=years",
  events: ["create", "delete"],
  signatureHeader: "X-Sig",
  headers: "X-Env: prod\nX-Team: a",
  bearer: "tok-123",
  signingSecret: "0123456789abcdef-secret",
  concurrency: "",
};

Deno.test("createFromForm: every setting; errors name the field", () => {
  const { row, secret } = createFromForm("f", BASE);
  assert.equal(secret, null);
  assert.equal(row.template, null, "no template outside the template modes");
  assert.deepEqual(row.mappings, { name: "fullName", age: "years" });
  assert.deepEqual(row.events, ["create", "delete"]);
  assert.deepEqual(row.headers, [["X-Env", "prod"], ["X-Team", "a"]]);
  assert.equal(row.bearer, "tok-123");
  assert.equal(row.signingSecret, "0123456789abcdef-secret");
  assert.equal(row.concurrency, null);
  assert.equal(mappingLines(row.mappings), "name = fullName\nage = years");
  const generated = createFromForm("f", {
    ...BASE,
    signingSecret: "",
    generateSigningSecret: "on",
    standardWebhooks: "on",
    concurrency: "3",
  });
  assert.match(generated.secret!, /^whsec_/);
  assert.equal(generated.row.standardWebhooks, true);
  assert.equal(generated.row.concurrency, 3);
  for (
    const [change, field] of [
      [{ url: "ftp://x" }, "url"],
      [{ concurrency: "99" }, "concurrency"],
      [{ headers: "Host: x" }, "headers.0"],
      [{ mode: "xml_template", template: "" }, "template"],
    ] as const
  ) {
    const err = (() => {
      try {
        createFromForm("f", { ...BASE, ...change });
      } catch (e) {
        return e as Invalid;
      }
    })();
    assert.ok(err instanceof Invalid, JSON.stringify(change));
    assert.equal(err.field, field);
  }
  assert.throws(() => parseMappings("no equals sign"), /is not "field = target"/);
});

Deno.test("patchFromForm: blank secrets stay, remove boxes clear them, new headers replace", () => {
  const { row } = createFromForm("f", BASE);
  const kept = patchFromForm(row, { ...BASE, bearer: "", signingSecret: "", headers: "" }).row;
  assert.equal(kept.bearer, "tok-123");
  assert.equal(kept.signingSecret, "0123456789abcdef-secret");
  assert.deepEqual(kept.headers, row.headers);
  const cleared = patchFromForm(row, {
    ...BASE,
    removeBearer: "on",
    removeHeaders: "on",
    removeSigningSecret: "on",
  }).row;
  assert.equal(cleared.bearer, null);
  assert.equal(cleared.signingSecret, null);
  assert.deepEqual(cleared.headers, []);
  const replaced = patchFromForm(row, { ...BASE, headers: "X-New: 1", method: "PATCH" });
  assert.deepEqual(replaced.row.headers, [["X-New", "1"]]);
  assert.equal(replaced.row.method, "PATCH");
  assert.match(
    patchFromForm(row, { ...BASE, generateSigningSecret: "on", signingSecret: "" }).secret!,
    /^whsec_/,
  );
});

Deno.test("previewBody: the delivery renderer on a sample record, in every mode", async () => {
  const fields = [{ id: "name", kind: "text" as const }, { id: "where", kind: "geo" as const }];
  const json = createFromForm("f", {
    ...BASE,
    mode: "json_template",
    template: '{"n": {{name}}, "w": {{where}}}',
  }).row;
  assert.deepEqual(JSON.parse((await previewBody(json, fields)).body), {
    n: "Sample text",
    w: "51.5072,-0.1276",
  });
  const form = createFromForm("f", { ...BASE, mode: "form", mappings: "" }).row;
  const preview = await previewBody(form, fields);
  assert.equal(preview.contentType, "application/x-www-form-urlencoded");
  assert.match(preview.body, /name=Sample\+text/);
});
