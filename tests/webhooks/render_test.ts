import assert from "node:assert/strict";
import {
  CONTENT_TYPES,
  renderBody,
  renderDefault,
  renderForm,
  type RenderInput,
  renderJsonTemplate,
  renderXmlTemplate,
  resolveValues,
  type WebhookField,
} from "../../src/webhooks/index.ts";

const SAVED_AT = "2024-05-06T07:08:09.1234567+00:00";

const FIELDS: WebhookField[] = [
  { id: "name", kind: "text" },
  { id: "email", kind: "email" },
  { id: "site", kind: "url" },
  { id: "phone", kind: "phone" },
  { id: "bio", kind: "richText" },
  { id: "age", kind: "number" },
  { id: "ratio", kind: "number" },
  { id: "agree", kind: "boolean" },
  { id: "born", kind: "date" },
  { id: "met", kind: "dateTime" },
  { id: "color", kind: "choice", options: ["red", "green"] },
  { id: "sizes", kind: "choice", options: ["S", "M", "L"], multiple: true },
  { id: "tags", kind: "list" },
  { id: "where", kind: "geo" },
  { id: "photo", kind: "image" },
  { id: "cv", kind: "attachment" },
  { id: "logo", kind: "image" },
  { id: "note", kind: "text" },
  { id: "blank", kind: "text" },
];

const VALUES = {
  name: 'Ada "Countess" <Lovelace> & co',
  email: "ada@example.com",
  site: "https://example.com/a?b=c&d=e",
  phone: "+44 20 7946 0000",
  bio: "<p>Line 1\nLine 2</p>",
  age: 36,
  ratio: 0.25,
  agree: false,
  born: "1815-12-10",
  met: "1833-06-05T18:30:00+00:00",
  color: "green",
  sizes: ["S", "L"],
  tags: ["math", "poetry"],
  where: { lat: 51.5072, lng: -0.1276 },
  photo: { url: "https://relay.example/put/u1/aa", hash: "a".repeat(64), owned: true },
  cv: { url: "https://files.example.com/cv.pdf", owned: false },
  logo: { dataUri: "data:image/png;base64,iVBORw0KGgo=" },
  note: null,
  blank: "",
};

const EVENT = {
  recordId: "rec_1",
  formId: "contact",
  savedAt: SAVED_AT,
  reason: "insert" as const,
  values: VALUES,
};

const BLOB_URL = "https://relay.example/blob/u1/aaaa?expires=1&sig=x";

async function input(
  values: Record<string, unknown> = VALUES,
  fields: WebhookField[] | null = FIELDS,
): Promise<RenderInput> {
  return await resolveValues({ ...EVENT, values }, fields, {
    blobUrl: (ref, ctx) => {
      assert.equal(ref.hash, "a".repeat(64));
      assert.equal(ctx.formId, "contact");
      assert.equal(ctx.lifetimeSeconds, 604800);
      return Promise.resolve(BLOB_URL);
    },
    blobUrlLifetimeSeconds: 604800,
  });
}

const META = {
  _recordId: "rec_1",
  _formId: "contact",
  _savedAt: SAVED_AT,
  _reason: "insert",
};

Deno.test("default mode: metadata first, every field under its raw id, value types per kind", async () => {
  const body = renderDefault(await input(), {});
  const parsed = JSON.parse(body);
  assert.deepEqual(Object.keys(parsed), [
    "_recordId",
    "_formId",
    "_savedAt",
    "_reason",
    ...FIELDS.map((f) => f.id),
  ]);
  assert.deepEqual(parsed, {
    ...META,
    name: 'Ada "Countess" <Lovelace> & co',
    email: "ada@example.com",
    site: "https://example.com/a?b=c&d=e",
    phone: "+44 20 7946 0000",
    bio: "<p>Line 1\nLine 2</p>",
    age: 36,
    ratio: 0.25,
    agree: false,
    born: "1815-12-10",
    met: "1833-06-05T18:30:00+00:00",
    color: "green",
    sizes: ["S", "L"],
    tags: ["math", "poetry"],
    where: "51.5072,-0.1276",
    photo: BLOB_URL,
    cv: "https://files.example.com/cv.pdf",
    logo: "data:image/png;base64,iVBORw0KGgo=",
    note: null,
    blank: null,
  });
});

Deno.test("default mode: golden bytes (compact JSON, metadata first, schema order)", async () => {
  const fields: WebhookField[] = [
    { id: "name", kind: "text" },
    { id: "age", kind: "number" },
    { id: "ratio", kind: "number" },
    { id: "agree", kind: "boolean" },
    { id: "sizes", kind: "choice", multiple: true },
    { id: "where", kind: "geo" },
    { id: "note", kind: "text" },
  ];
  const values = {
    where: { lat: 51.5072, lng: -0.1276 },
    name: 'Ada "C" <L> & co',
    age: 36,
    ratio: 0.25,
    agree: false,
    sizes: ["S", "L"],
  };
  assert.equal(
    renderDefault(await input(values, fields), {}),
    '{"_recordId":"rec_1","_formId":"contact","_savedAt":"2024-05-06T07:08:09.1234567+00:00",' +
      '"_reason":"insert","name":"Ada \\"C\\" <L> & co","age":36,"ratio":0.25,"agree":false,' +
      '"sizes":["S","L"],"where":"51.5072,-0.1276","note":null}',
  );
});

Deno.test("default mode: _savedAt keeps seven fractional digits and the +00:00 offset", async () => {
  const parsed = JSON.parse(renderDefault(await input(), {}));
  assert.match(parsed._savedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{7}\+00:00$/);
});

Deno.test("default mode: a field of the schema missing from the record is null", async () => {
  const parsed = JSON.parse(renderDefault(await input({ name: "Ada" }), {}));
  assert.equal(parsed.name, "Ada");
  assert.equal(parsed.age, null);
  assert.equal(parsed.where, null);
  assert.equal(parsed.photo, null);
  assert.equal(Object.keys(parsed).length, 4 + FIELDS.length);
});

Deno.test("default mode: empty values (empty string, empty list) are null", async () => {
  const parsed = JSON.parse(renderDefault(await input({ name: "", tags: [], sizes: [] }), {}));
  assert.equal(parsed.name, null);
  assert.equal(parsed.tags, null);
  assert.equal(parsed.sizes, null);
});

Deno.test("default mode: configured mappings emit only mapped fields, under their targets", async () => {
  const parsed = JSON.parse(
    renderDefault(await input(), { email: "contact_email", age: "years", ghost: "nothing" }),
  );
  assert.deepEqual(parsed, {
    ...META,
    contact_email: "ada@example.com",
    years: 36,
    nothing: null,
  });
  assert.deepEqual(Object.keys(parsed), [
    "_recordId",
    "_formId",
    "_savedAt",
    "_reason",
    "contact_email",
    "years",
    "nothing",
  ]);
});

Deno.test("default mode: a mapping whose target starts with _ wins over the metadata key", async () => {
  const body = renderDefault(await input(), { name: "_recordId", email: "_reason", age: "_x" });
  const parsed = JSON.parse(body);
  assert.equal(parsed._recordId, 'Ada "Countess" <Lovelace> & co');
  assert.equal(parsed._reason, "ada@example.com");
  assert.equal(parsed._formId, "contact");
  assert.equal(parsed._x, 36);
  // Each key once, metadata keys still first.
  assert.deepEqual(Object.keys(parsed), ["_recordId", "_formId", "_savedAt", "_reason", "_x"]);
  assert.equal(body.match(/"_recordId"/g)!.length, 1);
});

Deno.test("default mode: a numeric-looking target never jumps ahead of the metadata", async () => {
  const body = renderDefault(await input(), { age: "1" });
  assert.ok(body.startsWith('{"_recordId":"rec_1",'), body);
  assert.ok(body.endsWith(',"1":36}'), body);
});

Deno.test("values: without a schema, every value of the record in its order, kinds by shape", async () => {
  const parsed = JSON.parse(renderDefault(
    await input({ b: { lat: 1.5, lng: 2 }, a: { url: "https://x.example/f" }, c: ["x"] }, null),
    {},
  ));
  assert.deepEqual(parsed, { ...META, b: "1.5,2", a: "https://x.example/f", c: ["x"] });
});

Deno.test("values: without a blob resolver an owned reference keeps its stored URL", async () => {
  const resolved = await resolveValues({ ...EVENT, values: VALUES }, FIELDS, {
    blobUrlLifetimeSeconds: 60,
  });
  assert.equal(resolved.values.photo, "https://relay.example/put/u1/aa");
});

Deno.test("json template: typed values lose their quotes, strings and lists stay escaped strings", async () => {
  const template = `{
  "name": "{{name}}",
  "age": "{{age}}",
  "ratio": "{{ratio}}",
  "agree": "{{agree}}",
  "note": "{{note}}",
  "born": "{{born}}",
  "tags": "{{tags}}",
  "sizes": "{{sizes}}",
  "where": "{{where}}",
  "photo": "{{photo}}",
  "missing": "{{nope}}"
}`;
  const body = renderJsonTemplate(template, await input());
  assert.equal(
    body,
    `{
  "name": "Ada \\"Countess\\" <Lovelace> & co",
  "age": 36,
  "ratio": 0.25,
  "agree": false,
  "note": null,
  "born": "1815-12-10",
  "tags": "math, poetry",
  "sizes": "S, L",
  "where": "51.5072,-0.1276",
  "photo": "${BLOB_URL}",
  "missing": null
}`,
  );
  assert.deepEqual(JSON.parse(body).tags, "math, poetry");
});

Deno.test("json template: built-in tokens are always JSON strings", async () => {
  const values = await input();
  const numericId = { ...values, meta: { ...values.meta, _recordId: "12345" } };
  const body = renderJsonTemplate(
    '{"id": "{{_recordId}}", "form": "{{_formId}}", "at": "{{_savedAt}}", "why": "{{_reason}}"}',
    numericId,
  );
  assert.equal(
    body,
    `{"id": "12345", "form": "contact", "at": "${SAVED_AT}", "why": "insert"}`,
  );
});

Deno.test("json template: bare placeholders inside a string are JSON-escaped, no quote removal", async () => {
  const body = renderJsonTemplate(
    '{"text": "Hi {{name}}, age {{age}}, ok={{agree}}, tags={{tags}}, none=[{{note}}], ' +
      'nope=[{{nope}}], bio={{bio}}, id={{_recordId}}"}',
    await input(),
  );
  assert.equal(
    body,
    '{"text": "Hi Ada \\"Countess\\" <Lovelace> & co, age 36, ok=false, tags=math, poetry, ' +
      'none=[], nope=[], bio=<p>Line 1\\nLine 2</p>, id=rec_1"}',
  );
  assert.equal(
    JSON.parse(body).text,
    'Hi Ada "Countess" <Lovelace> & co, age 36, ok=false, tags=math, poetry, none=[], nope=[], ' +
      "bio=<p>Line 1\nLine 2</p>, id=rec_1",
  );
});

Deno.test("json template: a placeholder next to other text in the string is bare, not wrapped", async () => {
  const body = renderJsonTemplate(
    '{"a": "{{age}} years", "b": "#{{age}}", "c": "{{age}}{{age}}"}',
    await input(),
  );
  assert.equal(body, '{"a": "36 years", "b": "#36", "c": "3636"}');
});

Deno.test("json template: escaped quotes and braces in the template are left alone", async () => {
  const body = renderJsonTemplate(
    '{"q": "say \\"{{name}}\\"", "lit": "{not a placeholder}", "x": "\\\\"}',
    await input({ name: "Ada" }),
  );
  assert.equal(body, '{"q": "say \\"Ada\\"", "lit": "{not a placeholder}", "x": "\\\\"}');
  assert.deepEqual(JSON.parse(body), { q: 'say "Ada"', lit: "{not a placeholder}", x: "\\" });
});

Deno.test("json template: an unquoted placeholder outside strings renders as a JSON value", async () => {
  const body = renderJsonTemplate(
    '{"age": {{age}}, "name": {{name}}, "none": {{nope}}, "list": [{{tags}}]}',
    await input(),
  );
  assert.deepEqual(JSON.parse(body), {
    age: 36,
    name: 'Ada "Countess" <Lovelace> & co',
    none: null,
    list: ["math, poetry"],
  });
});

Deno.test("json template: control characters and unicode come out as valid JSON", async () => {
  const body = renderJsonTemplate(
    '{"a": "{{name}}", "b": "x{{name}}y"}',
    await input({ name: "tab\there \u0001 é 😀 \u2028" }),
  );
  assert.deepEqual(JSON.parse(body), {
    a: "tab\there \u0001 é 😀 \u2028",
    b: "xtab\there \u0001 é 😀 \u2028y",
  });
});

Deno.test("xml template: every value is XML-escaped, unmatched placeholders are empty", async () => {
  const template = '<?xml version="1.0"?>\n<record id="{{_recordId}}" reason="{{_reason}}">' +
    "<name>{{name}}</name><site>{{site}}</site><age>{{age}}</age><agree>{{agree}}</agree>" +
    "<tags>{{tags}}</tags><where>{{where}}</where><note>{{note}}</note><x>{{nope}}</x>" +
    '<attr v="{{name}}"/></record>';
  const body = renderXmlTemplate(template, await input());
  assert.equal(
    body,
    '<?xml version="1.0"?>\n<record id="rec_1" reason="insert">' +
      "<name>Ada &quot;Countess&quot; &lt;Lovelace&gt; &amp; co</name>" +
      "<site>https://example.com/a?b=c&amp;d=e</site><age>36</age><agree>false</agree>" +
      "<tags>math, poetry</tags><where>51.5072,-0.1276</where><note></note><x></x>" +
      '<attr v="Ada &quot;Countess&quot; &lt;Lovelace&gt; &amp; co"/></record>',
  );
});

Deno.test("xml template: markup in a value cannot break the structure", async () => {
  const body = renderXmlTemplate(
    "<a>{{name}}</a>",
    await input({ name: "</a><evil attr='1'>&amp;\u0000\u0007]]>" }),
  );
  assert.equal(
    body,
    "<a>&lt;/a&gt;&lt;evil attr=&apos;1&apos;&gt;&amp;amp;\uFFFD\uFFFD]]&gt;</a>",
  );
});

Deno.test("form mode: the default mode's key set, URL-encoded, lists joined", async () => {
  const body = renderForm(await input(), {});
  const params = new URLSearchParams(body);
  assert.deepEqual([...params.keys()], [
    "_recordId",
    "_formId",
    "_savedAt",
    "_reason",
    ...FIELDS.map((f) => f.id),
  ]);
  assert.equal(params.get("_savedAt"), SAVED_AT);
  assert.equal(params.get("name"), 'Ada "Countess" <Lovelace> & co');
  assert.equal(params.get("age"), "36");
  assert.equal(params.get("agree"), "false");
  assert.equal(params.get("tags"), "math, poetry");
  assert.equal(params.get("where"), "51.5072,-0.1276");
  assert.equal(params.get("photo"), BLOB_URL);
  assert.equal(params.get("note"), "");
  assert.ok(
    body.startsWith(
      "_recordId=rec_1&_formId=contact&_savedAt=2024-05-06T07%3A08%3A09.1234567%2B00%3A00" +
        "&_reason=insert&name=Ada+%22Countess%22+%3CLovelace%3E+%26+co&",
    ),
    body,
  );
});

Deno.test("form mode: mappings as in default mode, _ targets win", async () => {
  const body = renderForm(await input(), { email: "mail", name: "_reason" });
  assert.equal(
    body,
    "_recordId=rec_1&_formId=contact&_savedAt=2024-05-06T07%3A08%3A09.1234567%2B00%3A00" +
      "&_reason=Ada+%22Countess%22+%3CLovelace%3E+%26+co&mail=ada%40example.com",
  );
});

Deno.test("renderBody: the Content-Type of each mode", async () => {
  const values = await input({ name: "Ada" });
  const cases = [
    ["default", null, "application/json; charset=utf-8"],
    ["json_template", '{"n":"{{name}}"}', "application/json; charset=utf-8"],
    ["xml_template", "<n>{{name}}</n>", "application/xml; charset=utf-8"],
    ["form", null, "application/x-www-form-urlencoded"],
  ] as const;
  for (const [mode, template, type] of cases) {
    const { contentType, body } = renderBody({ mode, template, mappings: {} }, values);
    assert.equal(contentType, type);
    assert.equal(CONTENT_TYPES[mode], type);
    assert.ok(body.includes("Ada"), body);
  }
});
