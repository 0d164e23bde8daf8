import { sealpost } from "../_support/cli.ts";
import assert from "node:assert/strict";
import { fetchManifest, submitForm, verifyWebhookSignature } from "../../src/sdk/mod.ts";
import { call, startInstance, type TestInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";
import { type Receiver, startReceiver, until } from "../webhooks/_harness.ts";

const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, fn, sanitizeResources: false, sanitizeOps: false });

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "age", label: "Age", kind: "number" },
];
const SECRET = "cli-signing-secret-0123456789";
const BEARER = "bearer-token-abcdefghijkl-5678";
const API_KEY = "key-0123456789abcdef-WXYZ";
const META_KEYS = ["_recordId", "_formId", "_savedAt", "_reason"];

/** What the receiver answers: settable by the test. */
interface Answer {
  status: number;
  body: string;
}

/** An instance on a fast retry schedule, a published vault form, a scripted receiver. */
async function setup() {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-webhook-cli-" });
  const configFile = `${dir}/config.toml`;
  await Deno.writeTextFile(
    configFile,
    "[webhooks]\nretry_schedule_seconds = [0, 0.2]\njitter_ratio = 0\n",
  );
  const inst = await startInstance({ SEALPOST_CONFIG: configFile });
  const answer: Answer = { status: 200, body: "thanks" };
  const receiver = startReceiver(() => new Response(answer.body, { status: answer.status }));
  const { form, pin, token } = await vaultForm(inst, "Contact", FIELDS);
  const secretFile = `${dir}/secret`;
  await Deno.writeTextFile(secretFile, `${SECRET}\n`, { mode: 0o600 });
  /** Runs the CLI against this instance. */
  const cli = (args: string[]) => sealpost([...args, "--url", inst.url, "--token", token]);
  /** Runs the CLI and insists on exit 0; returns stdout. */
  const ok = async (args: string[]) => {
    const res = await cli(args);
    assert.equal(res.code, 0, `${args.join(" ")}: ${res.stderr}`);
    return res.stdout;
  };
  /** `webhook add --form <form> <receiver> <args> --json`: the created configuration. */
  const add = async (args: string[]) =>
    JSON.parse(
      await ok(["webhook", "add", "--form", form.formId, receiver.url, ...args, "--json"]),
    );
  return {
    dir,
    inst,
    token,
    formId: form.formId as string,
    pin,
    answer,
    receiver,
    secretFile,
    cli,
    ok,
    add,
    close: async () => {
      await inst.close();
      await receiver.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The instance's view of deliveries of `webhookId` (for polling; the CLI is asserted). */
async function deliveriesOf(inst: TestInstance, token: string, webhookId: string, failed = false) {
  const res = await call(
    `${inst.url}/owner/webhooks/${webhookId}/deliveries${failed ? "?failed=true" : ""}`,
    { token },
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.items as { id: string; recordId: string; status: string }[];
}

function signedWith(receiver: Receiver, index: number, secret: string): boolean {
  const request = receiver.received[index];
  return verifyWebhookSignature(request.raw, request.headers.get("X-Service-Signature"), secret);
}

test("webhook CLI: add, list, show (masked), edit only what is given, test, remove", async () => {
  const s = await setup();
  const { ok, cli, formId, receiver, answer } = s;
  try {
    // add: headers, mappings, a secret from a file, a bearer, all three events.
    const created = await s.add([
      "--name",
      "CRM",
      "--header",
      "X-Env: production-east-1",
      "--header",
      `X-Api-Key: ${API_KEY}`,
      "--map",
      "name=who",
      "--map",
      "age=years",
      "--secret-file",
      s.secretFile,
      "--bearer",
      BEARER,
      "--events",
      "create,update,delete",
    ]);
    const id: string = created.id;
    assert.match(id, /^[0-9a-f]{24}$/);
    assert.equal(created.formId, formId);
    assert.equal(created.url, receiver.url);
    assert.equal(created.name, "CRM");
    assert.equal(created.method, "POST");
    assert.equal(created.mode, "default");
    assert.deepEqual(created.headers, ["X-Env: ****", "X-Api-Key: ****WXYZ"]);
    assert.deepEqual(created.mappings, { name: "who", age: "years" });
    assert.deepEqual(created.events, ["create", "update", "delete"]);
    assert.equal(created.signingSecret, `****${SECRET.slice(-4)}`, "the file's newline is trimmed");
    assert.equal(created.bearer, "****5678");
    assert.equal(created.generatedSigningSecret, undefined);

    // A second one in text mode, with a generated secret: printed once, masked after.
    const second = await ok([
      "webhook",
      "add",
      "--form",
      formId,
      "--target",
      "https://crm.example/hooks/in",
      "--mode",
      "form",
      "--method",
      "put",
      "--generate-secret",
    ]);
    const generated = /^generated signing secret: (whsec_\S+)$/m.exec(second)?.[1];
    assert.ok(generated, second);
    assert.match(second, /^mode: {14}form$/m);
    assert.match(second, /^target: {12}PUT https:\/\/crm\.example\/hooks\/in$/m);
    const secondId = /^id: {16}([0-9a-f]{24})$/m.exec(second)![1];

    // list: one line each, oldest first; --json parses.
    const listed = (await ok(["webhook", "list", "--form", formId])).trimEnd().split("\n");
    assert.deepEqual(listed, [
      `${id}  POST ${receiver.url}  default  create,update,delete  CRM`,
      `${secondId}  PUT https://crm.example/hooks/in  form  create,update`,
    ]);
    const listedJson = JSON.parse(await ok(["webhook", "list", "--form", formId, "--json"]));
    assert.deepEqual(listedJson.map((w: { id: string }) => w.id), [id, secondId]);

    // show: every setting, secrets masked, never in full.
    const shown = await ok(["webhook", "show", id]);
    assert.match(shown, /^signing secret: {4}\*\*\*\*6789$/m);
    assert.match(shown, /^bearer: {12}\*\*\*\*5678$/m);
    assert.match(shown, /^headers: {11}X-Env: \*\*\*\*\n {19}X-Api-Key: \*\*\*\*WXYZ$/m);
    assert.match(shown, /^mappings: {10}name -> who, age -> years$/m);
    assert.match(shown, /^events: {12}create, update, delete$/m);
    assert.match(shown, /^flagged: {11}no$/m);
    assert.match(shown, /^failed deliveries: none$/m);
    const shownSecond = await ok(["webhook", "show", secondId, "--json"]);
    for (const secret of [SECRET, BEARER, API_KEY, generated, "production-east-1"]) {
      assert.ok(!shown.includes(secret) && !shownSecond.includes(secret), `${secret} shown`);
    }
    assert.deepEqual(JSON.parse(shownSecond).failedDeliveries, []);

    // edit: only the settings given change.
    const edited = JSON.parse(
      await ok(["webhook", "edit", id, "--name", "CRM 2", "--events", "create", "--json"]),
    );
    const { name: _n, events: _e, updatedAt: _u, ...rest } = edited;
    const { name: _n0, events: _e0, updatedAt: _u0, ...restBefore } = created;
    assert.equal(edited.name, "CRM 2");
    assert.deepEqual(edited.events, ["create"]);
    assert.deepEqual(rest, restBefore, "nothing else changed");

    // test: the receiver gets one signed request, mapped, with the headers and the bearer.
    const valuesFile = `${s.dir}/values.json`;
    await Deno.writeTextFile(valuesFile, JSON.stringify({ name: "Given", age: 7 }));
    const tested = await ok(["webhook", "test", id, "--values", valuesFile]);
    assert.match(tested, /^delivered {2}HTTP 200 {2}\d+ ms$/m);
    assert.match(tested, /^response: thanks$/m);
    assert.match(tested, /^sent: {5}application\/json/m);
    assert.equal(receiver.received.length, 1);
    const request = receiver.received[0];
    assert.equal(request.method, "POST");
    assert.equal(request.headers.get("x-env"), "production-east-1");
    assert.equal(request.headers.get("x-api-key"), API_KEY);
    assert.equal(request.headers.get("authorization"), `Bearer ${BEARER}`);
    assert.ok(signedWith(receiver, 0, SECRET), "signed with the secret from the file");
    const body = JSON.parse(request.text);
    assert.deepEqual(Object.keys(body), [...META_KEYS, "who", "years"], "mapped fields only");
    assert.match(body._recordId, /^test_/);
    assert.deepEqual([body.who, body.years], ["Given", 7]);
    assert.ok(tested.includes(request.text), "the body sent is printed");

    // A refused test send exits 1 and says why; --json still prints the result.
    answer.status = 400;
    answer.body = "bad request";
    const refusedTest = await cli(["webhook", "test", id, "--json"]);
    assert.equal(refusedTest.code, 1);
    const result = JSON.parse(refusedTest.stdout);
    assert.deepEqual([result.outcome, result.status, result.snippet], [
      "permanent",
      400,
      "bad request",
    ]);
    assert.equal(JSON.parse(result.body).who, "Sample text", "sample values without --values");
    assert.equal(receiver.received.length, 2);

    // edit removes settings with --no-*; the secret stays.
    const stripped = JSON.parse(
      await ok([
        "webhook",
        "edit",
        id,
        "--no-bearer",
        "--no-headers",
        "--no-mappings",
        "--method",
        "PATCH",
        "--json",
      ]),
    );
    assert.equal(stripped.bearer, null);
    assert.deepEqual(stripped.headers, []);
    assert.deepEqual(stripped.mappings, {});
    assert.equal(stripped.method, "PATCH");
    assert.equal(stripped.signingSecret, `****${SECRET.slice(-4)}`);
    assert.equal(stripped.name, "CRM 2");

    // API refusals: exit 1 with the message (and the field), or a JSON error with --json.
    const [badUrl, badUrlJson, badEvent, noTemplate, noForm, badToken] = await Promise.all([
      cli(["webhook", "add", "--form", formId, "ftp://x.example/"]),
      cli(["webhook", "add", "--form", formId, "ftp://x.example/", "--json"]),
      cli(["webhook", "edit", id, "--events", "create,bogus"]),
      cli(["webhook", "edit", id, "--mode", "json_template"]),
      cli(["webhook", "list", "--form", "no-such-form"]),
      sealpost(["webhook", "list", "--form", formId, "--url", s.inst.url, "--token", "spo_x"]),
    ]);
    assert.equal(badUrl.code, 1);
    assert.equal(badUrl.stderr.trim(), 'Invalid url: "ftp:" URLs are not supported');
    assert.equal(badUrlJson.code, 1);
    const { error } = JSON.parse(badUrlJson.stderr);
    assert.deepEqual([error.code, error.field], ["invalid_request", "url"]);
    assert.equal(error.message, badUrl.stderr.trim());
    assert.equal(badEvent.code, 1);
    assert.match(badEvent.stderr, /^Invalid events\.1: /);
    assert.equal(noTemplate.code, 1);
    assert.equal(noTemplate.stderr.trim(), 'template: Mode "json_template" needs a template');
    assert.equal(noForm.code, 1);
    assert.match(noForm.stderr, /Form "no-such-form" not found/);
    assert.equal(badToken.code, 1);
    assert.equal(badToken.stdout, "");
    assert.equal(
      (await ok(["webhook", "show", id, "--json"])).includes('"events":["create"]'),
      true,
    );

    // remove: gone from the list, then a 404.
    assert.equal((await ok(["webhook", "remove", secondId])).trim(), `Removed ${secondId}`);
    assert.deepEqual(
      JSON.parse(await ok(["webhook", "list", "--form", formId, "--json"])).map(
        (w: { id: string }) => w.id,
      ),
      [id],
    );
    const gone = await cli(["webhook", "show", secondId, "--json"]);
    assert.equal(gone.code, 1);
    assert.equal(JSON.parse(gone.stderr).error.code, "webhook_not_found");
    const goneText = await cli(["webhook", "remove", secondId]);
    assert.equal(goneText.code, 1);
    assert.equal(goneText.stderr.trim(), `Webhook "${secondId}" not found`);
  } finally {
    await s.close();
  }
});

test("deliveries CLI: a permanent failure is listed, shown, retried one by one and all", async () => {
  const s = await setup();
  const { ok, cli, inst, token, formId, receiver, answer } = s;
  try {
    answer.status = 400;
    answer.body = "nope, bad request";
    const { id } = await s.add(["--secret-file", s.secretFile]);
    const manifest = await fetchManifest(formId, { relayUrl: inst.url, pin: s.pin });
    const first = await submitForm(manifest, { name: "Ada", age: 36 });
    await until(async () => (await deliveriesOf(inst, token, id, true)).length === 1, "a failure");

    // list, --failed, --json: one line per delivery.
    const [failed] = JSON.parse(
      await ok(["deliveries", "list", "--webhook", id, "--failed", "--json"]),
    ).items;
    assert.equal(failed.recordId, first.submissionId);
    assert.deepEqual([failed.status, failed.attempts, failed.lastStatus], ["failed", 1, 400]);
    assert.equal(
      (await ok(["deliveries", "list", "--webhook", id])).trimEnd(),
      `${failed.id}  ${first.submissionId}  insert  failed  1 attempt  HTTP 400`,
    );

    // The configuration is flagged; show lists the failure.
    const shown = await ok(["webhook", "show", id]);
    assert.match(
      shown,
      new RegExp(`^flagged: {11}permanent HTTP 400 \\(delivery ${failed.id}, `, "m"),
    );
    assert.match(
      shown,
      new RegExp(`^failed deliveries:\\n {2}${failed.id} {2}${first.submissionId} `, "m"),
    );
    assert.match(await ok(["webhook", "list", "--form", formId]), /FLAGGED permanent HTTP 400/);

    // deliveries show: the delivery and its attempt with status, duration, snippet.
    const detail = await ok(["deliveries", "show", failed.id]);
    assert.match(
      detail,
      /^ {2}#1 {2}\d{4}-\d\d-\d\dT\S+ {2}HTTP 400 {2}\d+ ms {2}permanent {2}"nope, bad request"$/m,
    );
    const detailJson = JSON.parse(await ok(["deliveries", "show", failed.id, "--json"]));
    assert.equal(detailJson.delivery.id, failed.id);
    assert.deepEqual(
      detailJson.attempts.map((a: { status: number; snippet: string }) => [a.status, a.snippet]),
      [[400, "nope, bad request"]],
    );

    // Retry one once the receiver is fixed: it arrives, same bytes, signed.
    answer.status = 200;
    answer.body = "ok";
    const retried = await ok(["deliveries", "retry", failed.id]);
    assert.match(retried.trim(), new RegExp(`^Re-queued ${failed.id} \\((pending|delivered)\\)$`));
    await receiver.waitFor(2);
    assert.equal(receiver.received[1].text, receiver.received[0].text);
    assert.ok(signedWith(receiver, 1, SECRET));
    assert.equal(JSON.parse(receiver.received[1].text)._recordId, first.submissionId);
    await until(
      async () => (await deliveriesOf(inst, token, id))[0].status === "delivered",
      "the retried delivery",
    );
    assert.equal(
      (await ok(["deliveries", "list", "--webhook", id, "--failed"])).trim(),
      "No deliveries",
    );
    assert.match(await ok(["webhook", "show", id]), /^flagged: {11}no$/m);

    // Retry all failed ones of the configuration.
    answer.status = 400;
    const second = await submitForm(manifest, { name: "Grace" });
    await until(async () => (await deliveriesOf(inst, token, id, true)).length === 1, "a failure");
    answer.status = 200;
    assert.equal(
      (await ok(["deliveries", "retry", "--webhook", id, "--failed"])).trim(),
      "Re-queued 1 failed delivery",
    );
    await receiver.waitFor(4);
    assert.equal(JSON.parse(receiver.received[3].text)._recordId, second.submissionId);
    assert.ok(signedWith(receiver, 3, SECRET));
    await until(async () => (await deliveriesOf(inst, token, id, true)).length === 0, "no failure");
    assert.deepEqual(
      JSON.parse(await ok(["deliveries", "retry", "--webhook", id, "--failed", "--json"])),
      { retried: 0 },
    );

    // Paging: --limit and the cursor printed on stderr.
    const page = await cli(["deliveries", "list", "--webhook", id, "--limit", "1"]);
    assert.equal(page.code, 0);
    assert.match(
      page.stdout,
      new RegExp(`^\\S+ {2}${second.submissionId} {2}insert {2}delivered `),
    );
    const cursor = /^more: --cursor (\S+)$/m.exec(page.stderr)?.[1];
    assert.ok(cursor, page.stderr);
    const next = JSON.parse(
      await ok([
        "deliveries",
        "list",
        "--webhook",
        id,
        "--limit",
        "1",
        "--cursor",
        cursor,
        "--json",
      ]),
    );
    assert.deepEqual(next.items.map((d: { recordId: string }) => d.recordId), [first.submissionId]);
    if (next.nextCursor !== null) {
      // A full page may still carry a cursor; following it ends the list.
      const end = await cli(["deliveries", "list", "--webhook", id, "--cursor", next.nextCursor]);
      assert.equal(end.code, 0);
      assert.equal(end.stdout.trim(), "No deliveries");
      assert.equal(end.stderr, "");
    }

    // Refusals: an unknown delivery, a malformed id.
    const unknown = await cli(["deliveries", "retry", "0".repeat(32)]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /not found/);
    const malformed = await cli(["deliveries", "show", "nope", "--json"]);
    assert.equal(malformed.code, 1);
    assert.equal(JSON.parse(malformed.stderr).error.code, "invalid_request");
  } finally {
    await s.close();
  }
});

test("webhook CLI: --concurrency sets a configuration's limit; --no-concurrency resets it", async () => {
  const s = await setup();
  const { ok } = s;
  try {
    const { id, concurrency } = await s.add(["--concurrency", "2"]);
    assert.equal(concurrency, 2);
    assert.match(await ok(["webhook", "show", id]), /^concurrency: {7}2$/m);
    const edited = JSON.parse(await ok(["webhook", "edit", id, "--concurrency", "64", "--json"]));
    assert.equal(edited.concurrency, 64);
    const renamed = JSON.parse(await ok(["webhook", "edit", id, "--name", "n", "--json"]));
    assert.equal(renamed.concurrency, 64, "kept when not given");
    const reset = await ok(["webhook", "edit", id, "--no-concurrency"]);
    assert.match(reset, /^concurrency: {7}instance default$/m);
    const shown = JSON.parse(await ok(["webhook", "show", id, "--json"]));
    assert.equal(shown.concurrency, null);
    const plain = await s.add([]);
    assert.equal(plain.concurrency, null);
  } finally {
    await s.close();
  }
});

test("webhook CLI: --help exits 0; usage errors exit 2 with the help, before any request", async () => {
  const nowhere = ["--url", "http://127.0.0.1:9", "--token", "spo_unused"];
  const help = await Promise.all(
    [["webhook"], ["webhook", "add"], ["webhook", "test"], ["deliveries"], [
      "deliveries",
      "retry",
    ]].map((command) => sealpost([...command, "--help"])),
  );
  for (const res of help) {
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^Usage: sealpost (webhook|deliveries) <command>/);
    assert.match(res.stdout, /--token TOKEN/);
  }
  assert.match(help[0].stdout, /--secret-file FILE/);
  assert.match(help[3].stdout, /deliveries retry --webhook ID --failed/);
  const main = await sealpost(["--help"]);
  assert.match(main.stdout, /webhook add\|list\|show\|edit\|remove\|test/);
  assert.match(main.stdout, /deliveries list\|show\|retry/);

  const cases: [string[], RegExp, RegExp][] = [
    [["webhook"], /^Missing command/, /Usage: sealpost webhook /],
    [["deliveries"], /^Missing command/, /Usage: sealpost deliveries /],
    [["webhook", "frob"], /^Unknown command "webhook frob"/, /Usage: sealpost webhook /],
    [["webhook", "add", "https://x.example/"], /^Missing --form FORMID/, /--target URL/],
    [["webhook", "add", "--form", "f"], /^Missing TARGET_URL/, /Usage: sealpost webhook /],
    [
      ["webhook", "add", "--form", "f", "https://a.example/", "--target", "https://b.example/"],
      /^Give the target URL once/,
      /Usage/,
    ],
    [
      ["webhook", "add", "--form", "f", "https://x.example/", "--map", "name"],
      /^--map "name" is not FIELD=KEY/,
      /Usage/,
    ],
    [
      ["webhook", "add", "--form", "f", "https://x.example/", "--map", "a=x", "--map", "a=y"],
      /^--map gives field "a" twice/,
      /Usage/,
    ],
    [
      [
        "webhook",
        "add",
        "--form",
        "f",
        "https://x.example/",
        "--secret",
        SECRET,
        "--generate-secret",
      ],
      /^Give one of --secret, --generate-secret, not several/,
      /Usage/,
    ],
    [
      ["webhook", "add", "--form", "f", "https://x.example/", "--secret-file", "/nonexistent/s"],
      /^Cannot read --secret-file "\/nonexistent\/s"/,
      /Usage/,
    ],
    [
      ["webhook", "add", "--form", "f", "https://x.example/", "--no-bearer"],
      /^--no-bearer does not apply to "webhook add"/,
      /Usage/,
    ],
    [["webhook", "edit", "0".repeat(24)], /^Nothing to change/, /Usage/],
    [
      ["webhook", "add", "--form", "f", "https://x.example/", "--concurrency", "0"],
      /^Invalid --concurrency "0": an integer, 1 to 64/,
      /--concurrency N/,
    ],
    [["webhook", "edit", "x", "--concurrency", "65"], /^Invalid --concurrency "65"/, /Usage/],
    [["webhook", "edit", "x", "--concurrency", "1.5"], /^Invalid --concurrency "1\.5"/, /Usage/],
    [
      ["webhook", "edit", "x", "--concurrency", "2", "--no-concurrency"],
      /^Give one of --concurrency, --no-concurrency, not several/,
      /--no-concurrency/,
    ],
    [
      ["webhook", "add", "--form", "f", "https://x.example/", "--no-concurrency"],
      /^--no-concurrency does not apply to "webhook add"/,
      /Usage/,
    ],
    [["webhook", "show"], /^Missing ID/, /Usage/],
    [["webhook", "show", "a", "b"], /^Unexpected argument "b"/, /Usage/],
    [["webhook", "list", "--form", "f", "--nope"], /--nope/, /Usage: sealpost webhook /],
    [["webhook", "list", "--form", "f", "--failed"], /^--failed does not apply/, /Usage/],
    [["deliveries", "list"], /^Missing --webhook ID/, /Usage: sealpost deliveries /],
    [
      ["deliveries", "list", "--webhook", "x", "--limit", "0"],
      /^Invalid --limit "0": an integer, 1 to 500/,
      /Usage/,
    ],
    [["deliveries", "retry"], /^Missing DELIVERYID/, /Usage/],
    [["deliveries", "retry", "--webhook", "x"], /add --failed/, /Usage/],
    [["deliveries", "retry", "d", "--failed"], /^--failed needs --webhook ID/, /Usage/],
  ];
  const results = await Promise.all(cases.map(([args]) => sealpost([...args, ...nowhere])));
  results.forEach((res, i) => {
    const [args, message, usage] = cases[i];
    assert.equal(res.code, 2, `${args.join(" ")}: ${res.stderr}`);
    assert.match(res.stderr, message, args.join(" "));
    assert.match(res.stderr, usage, args.join(" "));
    assert.equal(res.stdout, "");
  });
});
