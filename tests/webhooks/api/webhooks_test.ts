import assert from "node:assert/strict";
import { emitRecordEvent } from "../../../src/store/kv/record_events.ts";
import { verifyWebhookSignature } from "../../../src/sdk/mod.ts";
import { formatSavedAt } from "../../../src/webhooks/index.ts";
import { secondPerson } from "../../_support/people.ts";
import { vaultForm } from "../../_support/vault.ts";
import { call, startInstance, type TestInstance } from "../../_support/server.ts";
import { startReceiver, until } from "../_harness.ts";
import { KvWrite } from "../../../src/store/kv/write.ts";

const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, fn, sanitizeResources: false, sanitizeOps: false });

const FAST_CONFIG = "[webhooks]\nretry_schedule_seconds = [0, 0.2]\njitter_ratio = 0\n";

/** A running instance with form `contact` published by its first user. */
async function setup(): Promise<{ inst: TestInstance; token: string; config: string }> {
  const config = await Deno.makeTempFile({ suffix: ".toml" });
  await Deno.writeTextFile(config, FAST_CONFIG);
  const inst = await startInstance({ SEALPOST_CONFIG: config });
  await vaultForm(inst, "Contact", [{ id: "name", kind: "text", label: "Name", required: true }], {
    formId: "contact",
  });
  return { inst, token: inst.credentials.ownerToken, config };
}

async function teardown(s: { inst: TestInstance; config: string }) {
  await s.inst.close();
  await Deno.remove(s.config);
}

/** Emits a record event into the instance's store, as the vault will. */
async function emit(inst: TestInstance, values: Record<string, unknown>, reason = "insert") {
  const id = crypto.randomUUID().replaceAll("-", "");
  const event = {
    eventId: id,
    reason: reason as "insert",
    recordId: `rec_${id.slice(0, 8)}`,
    formId: "contact",
    schemaVersion: 1,
    savedAt: formatSavedAt(new Date()),
    values,
  };
  const store = inst.server.store;
  assert.ok(store.backend === "kv", "the event is written as the KV vault writes it");
  const kv = store.kv;
  const op = new KvWrite();
  const stored = emitRecordEvent(op, event);
  assert.ok(await op.commit(kv));
  store.recordEvents.announce([stored]);
  return event;
}

test("owner API: authentication and form ownership", async () => {
  const s = await setup();
  const { inst, token } = s;
  try {
    const url = `${inst.url}/owner/forms/contact/webhooks`;
    assert.equal((await call(url)).status, 401);
    const admin = await call(url, { token: inst.credentials.adminToken });
    assert.equal(admin.status, 403);
    const mallory = await secondPerson(inst, "mallory");
    // A form of a database the person is no member of answers exactly like a missing one.
    const foreign = await call(url, { token: mallory });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, "form_not_found");
    const formIdOf = url.split("/").at(-2)!;
    const missingId = "nope";
    const missing = await call(`${inst.url}/owner/forms/${missingId}/webhooks`, { token });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, "form_not_found");
    assert.equal(
      foreign.body.error.message.replace(formIdOf, "ID"),
      missing.body.error.message.replace(missingId, "ID"),
    );
    const created = await call(url, {
      method: "POST",
      token,
      json: { url: "https://e.example/h" },
    });
    assert.equal(created.status, 201);
    const id = created.body.id;
    for (const path of [`/owner/webhooks/${id}`, `/owner/webhooks/${id}/deliveries`]) {
      const res = await call(`${inst.url}${path}`, { token: mallory });
      assert.equal(res.status, 404, path);
      assert.equal(res.body.error.code, "webhook_not_found");
    }
    const patched = await call(`${inst.url}/owner/webhooks/${id}`, {
      method: "PATCH",
      token: mallory,
      json: { url: "https://evil.example/" },
    });
    assert.equal(patched.status, 404);
  } finally {
    await teardown(s);
  }
});

test("owner API: create with defaults; secrets never shown back in full", async () => {
  const s = await setup();
  const { inst, token } = s;
  try {
    const created = await call(`${inst.url}/owner/forms/contact/webhooks`, {
      method: "POST",
      token,
      json: {
        name: "CRM",
        url: "https://crm.example/hooks/in",
        bearer: "bearer-token-abcdefghijkl-1234",
        headers: ["X-Api-Key: key-0123456789abcdef-WXYZ", "X-Env: prod"],
        generateSigningSecret: true,
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const view = created.body;
    assert.equal(view.method, "POST");
    assert.equal(view.mode, "default");
    assert.equal(view.template, null);
    assert.deepEqual(view.events, ["create", "update"]);
    assert.equal(view.signatureHeader, "X-Service-Signature");
    assert.deepEqual(view.mappings, {});
    assert.equal(view.standardWebhooks, false);
    assert.equal(view.flagged, null);
    assert.equal(view.bearer, "****1234");
    assert.deepEqual(view.headers, ["X-Api-Key: ****WXYZ", "X-Env: ****"]);
    const secret: string = view.generatedSigningSecret;
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(view.signingSecret, `****${secret.slice(-4)}`);

    const shown = await call(`${inst.url}/owner/webhooks/${view.id}`, { token });
    assert.equal(shown.status, 200);
    assert.equal(shown.body.generatedSigningSecret, undefined);
    const text = JSON.stringify(shown.body);
    for (const s of [secret, "bearer-token-abcdefghijkl-1234", "key-0123456789abcdef-WXYZ"]) {
      assert.ok(!text.includes(s), `${s} shown back`);
    }
    const listed = await call(`${inst.url}/owner/forms/contact/webhooks`, { token });
    assert.deepEqual(listed.body.items.map((w: { id: string }) => w.id), [view.id]);
    assert.ok(!JSON.stringify(listed.body).includes(secret));
  } finally {
    await teardown(s);
  }
});

test("owner API: invalid configurations are 400s naming the field", async () => {
  const s = await setup();
  const { inst, token } = s;
  try {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ url: "ftp://x.example/" }, "url", /"ftp:" URLs are not supported/],
      [{ url: "https://u:p@x.example/" }, "url", /credentials/],
      [{ url: "not a url" }, "url", /not an absolute URL/],
      [{ url: "https://x.example/", method: "GET" }, "method", /Invalid/],
      [{ url: "https://x.example/", mode: "json_template" }, "template", /needs a template/],
      [{ url: "https://x.example/", template: "{}" }, "template", /takes no template/],
      [
        { url: "https://x.example/", mode: "json_template", template: '{"a": "{{x}}" "b"}' },
        "template",
        /does not render valid JSON/,
      ],
      [{ url: "https://x.example/", headers: ["no colon"] }, "headers.0", /not "Key: Value"/],
      [{ url: "https://x.example/", headers: ["Host: a"] }, "headers.0", /set by the transport/],
      [{ url: "https://x.example/", headers: ["X-A: b\u0001"] }, "headers.0", /control/],
      [
        { url: "https://x.example/", signingSecret: "short" },
        "signingSecret",
        /Too small|at least/i,
      ],
      [
        { url: "https://x.example/", standardWebhooks: true, signingSecret: "a".repeat(32) },
        "signingSecret",
        /whsec_/,
      ],
      [
        { url: "https://x.example/", mappings: { a: "same", b: "same" } },
        "mappings.b",
        /both map to "same"/,
      ],
      [
        { url: "https://x.example/", mappings: { "1bad": "x" } },
        "mappings.1bad",
        /"1bad" is not a field id/,
      ],
      [{ url: "https://x.example/", events: ["create", "create"] }, "events", /at most once/],
      [{ url: "https://x.example/", concurrency: 0 }, "concurrency", /Too small|>=/i],
      [{ url: "https://x.example/", concurrency: "4" }, "concurrency", /expected number/],
      [
        {
          url: "https://x.example/",
          signatureHeader: "Authorization",
          signingSecret: "x".repeat(20),
        },
        "signatureHeader",
        /cannot be the signature header/,
      ],
      [{ url: "https://x.example/", color: "blue" }, "color", /Unknown field/],
    ];
    for (const [json, field, message] of cases) {
      const res = await call(`${inst.url}/owner/forms/contact/webhooks`, {
        method: "POST",
        token,
        json,
      });
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.equal(res.body.error.field, field, JSON.stringify(res.body));
      assert.match(res.body.error.message, message);
    }
  } finally {
    await teardown(s);
  }
});

test("owner API: deliveries, attempts, flag, retry one and all, edit, test send, remove", async () => {
  const s = await setup();
  const { inst, token } = s;
  let healthy = false;
  const receiver = startReceiver(() =>
    healthy ? new Response("fine") : new Response("missing\nhook", { status: 404 })
  );
  try {
    const created = await call(`${inst.url}/owner/forms/contact/webhooks`, {
      method: "POST",
      token,
      json: {
        url: receiver.url,
        mode: "json_template",
        template: '{"id": "{{_recordId}}", "who": "{{name}}", "n": "{{count}}"}',
        signingSecret: "a-shared-secret-0123456789",
        events: ["create", "update", "delete"],
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id;
    const base = `${inst.url}/owner/webhooks/${id}`;

    const e1 = await emit(inst, { name: "Ada" });
    const e2 = await emit(inst, { name: "Grace" });
    const failedList = await until(async () => {
      const res = await call(`${base}/deliveries?failed=true`, { token });
      return res.body.items.length === 2 ? res.body.items : null;
    }, "two failed deliveries");
    assert.deepEqual(
      failedList.map((d: { recordId: string }) => d.recordId).sort(),
      [e1.recordId, e2.recordId].sort(),
    );
    const shown = await call(base, { token });
    assert.equal(shown.body.flagged.reason, "permanent");
    assert.equal(shown.body.flagged.status, 404);

    const one = failedList.find((d: { recordId: string }) => d.recordId === e1.recordId);
    const detail = await call(`${inst.url}/owner/deliveries/${one.id}`, { token });
    assert.equal(detail.status, 200);
    assert.equal(detail.body.delivery.status, "failed");
    assert.equal(detail.body.delivery.lastSnippet, "missing hook");
    assert.equal(detail.body.attempts.length, 1);
    assert.deepEqual(
      [detail.body.attempts[0].n, detail.body.attempts[0].status, detail.body.attempts[0].outcome],
      [1, 404, "permanent"],
    );
    assert.equal(detail.body.delivery.token, undefined);

    healthy = true;
    const retried = await call(`${inst.url}/owner/deliveries/${one.id}/retry`, {
      method: "POST",
      token,
    });
    assert.equal(retried.status, 202);
    assert.equal((await call(base, { token })).body.flagged, null);
    await until(async () => {
      const res = await call(`${inst.url}/owner/deliveries/${one.id}`, { token });
      return res.body.delivery.status === "delivered";
    }, "the retried delivery");
    const all = await call(`${base}/deliveries/retry`, { method: "POST", token });
    assert.deepEqual(all.body, { retried: 1 });
    await until(async () => {
      const res = await call(`${base}/deliveries?failed=true`, { token });
      return res.body.items.length === 0;
    }, "no failed deliveries");
    const received = await receiver.waitFor(4);
    const last = JSON.parse(received.at(-1)!.text);
    assert.deepEqual(Object.keys(last), ["id", "who", "n"]);
    assert.equal(last.n, null, "a field of no value renders null");
    for (const r of received) {
      assert.ok(
        verifyWebhookSignature(
          r.raw,
          r.headers.get("X-Service-Signature"),
          "a-shared-secret-0123456789",
        ),
      );
    }

    // A delete event is listed as skipped and never sent.
    await emit(inst, {}, "delete");
    const page = await until(async () => {
      const res = await call(`${base}/deliveries?limit=2`, { token });
      return res.body.items[0]?.reason === "delete" ? res.body : null;
    }, "the delete delivery");
    assert.equal(page.items[0].status, "skipped");
    assert.equal(page.items.length, 2);
    assert.ok(page.nextCursor);
    const rest = await call(
      `${base}/deliveries?limit=2&cursor=${encodeURIComponent(page.nextCursor)}`,
      { token },
    );
    assert.equal(rest.body.items.length, 1);
    assert.equal(rest.body.nextCursor, null);
    // A cursor of the right shape that no list gave out: a 400 naming it, never a 500.
    const foreign = await call(`${base}/deliveries?cursor=_w`, { token });
    assert.equal(foreign.status, 400, JSON.stringify(foreign.body));
    assert.equal(foreign.body.error.code, "invalid_request");
    assert.equal(foreign.body.error.field, "cursor");
    const skipped = await call(`${inst.url}/owner/deliveries/${page.items[0].id}/retry`, {
      method: "POST",
      token,
    });
    assert.equal(skipped.status, 409);
    assert.equal(skipped.body.error.code, "delivery_skipped");

    // Test send: sample values, no body needed.
    const tested = await call(`${base}/test`, { method: "POST", token });
    assert.equal(tested.status, 200, JSON.stringify(tested.body));
    assert.equal(tested.body.outcome, "delivered");
    assert.equal(tested.body.status, 200);
    assert.equal(tested.body.snippet, "fine");
    assert.match(JSON.parse(tested.body.body).id, /^test_/);
    assert.equal(JSON.parse(tested.body.body).who, "Sample text");
    const withValues = await call(`${base}/test`, {
      method: "POST",
      token,
      json: { values: { name: "Given" } },
    });
    assert.equal(JSON.parse(withValues.body.body).who, "Given");

    // Edit: mode change drops the template; a bad edit is refused and changes nothing.
    const edited = await call(base, { method: "PATCH", token, json: { mode: "form" } });
    assert.equal(edited.status, 200);
    assert.equal(edited.body.template, null);
    assert.equal(edited.body.mode, "form");
    const refused = await call(base, {
      method: "PATCH",
      token,
      json: { mode: "xml_template" },
    });
    assert.equal(refused.status, 400);
    assert.equal((await call(base, { token })).body.mode, "form");
    const cleared = await call(base, { method: "PATCH", token, json: { signingSecret: null } });
    assert.equal(cleared.body.signingSecret, null);

    const removed = await call(base, { method: "DELETE", token });
    assert.equal(removed.status, 204);
    assert.equal((await call(base, { token })).status, 404);
    assert.equal((await call(`${inst.url}/owner/deliveries/${one.id}`, { token })).status, 404);
  } finally {
    await teardown(s);
    await receiver.close();
  }
});

test("OpenAPI: the webhook routes are documented", async () => {
  const s = await setup();
  try {
    const doc = await call(`${s.inst.url}/openapi.json`);
    for (
      const path of [
        "/owner/forms/{formId}/webhooks",
        "/owner/webhooks/{webhookId}",
        "/owner/webhooks/{webhookId}/test",
        "/owner/webhooks/{webhookId}/deliveries",
        "/owner/webhooks/{webhookId}/deliveries/retry",
        "/owner/deliveries/{deliveryId}",
        "/owner/deliveries/{deliveryId}/retry",
      ]
    ) {
      assert.ok(doc.body.paths[path], `OpenAPI lacks ${path}`);
    }
  } finally {
    await teardown(s);
  }
});
