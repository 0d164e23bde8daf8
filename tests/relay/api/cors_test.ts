/**
 * CORS over real HTTP: the anonymous sender routes answer preflights and carry
 * Access-Control-Allow-Origin (errors included); owner and admin routes carry none; a form's
 * allowed origins (signed into its manifest) refuse other sites' pages before anything is
 * stored, and the relay's own page, and clients without an Origin, stay allowed.
 */
import assert from "node:assert/strict";
import { buildEnvelope, buildPayload, fetchManifest, seal } from "../../../src/sdk/mod.ts";
import { PREFLIGHT_MAX_AGE } from "../../../src/relay/api/cors.ts";
import { call, startInstance, type TestInstance } from "../../_support/server.ts";
import { vaultForm } from "../../_support/vault.ts";

const SITE = "https://site.example";
const FIELDS = [{ id: "name", label: "Name", kind: "text", required: true }];

function preflight(inst: TestInstance, path: string, method: string, headers = "content-type") {
  return fetch(inst.url + path, {
    method: "OPTIONS",
    headers: {
      origin: SITE,
      "access-control-request-method": method,
      "access-control-request-headers": headers,
    },
  });
}

async function envelopeFor(inst: TestInstance, formId: string, pin: string) {
  const manifest = await fetchManifest(formId, { relayUrl: inst.url, pin });
  const payload = buildPayload(manifest, { name: "Ada" });
  return buildEnvelope(manifest, await seal(payload, manifest.recipient.publicKey));
}

Deno.test("sender routes answer preflights; owner and admin routes send no CORS headers", async () => {
  const inst = await startInstance();
  try {
    const { form } = await vaultForm(inst, "Open", FIELDS);
    const cases: [string, string, string][] = [
      ["/submissions", "POST", "Content-Type"],
      ["/submissions/upload-slot", "POST", "Content-Type"],
      [`/submissions/${"ab".repeat(16)}`, "PUT", "Authorization, Content-Type"],
      [`/blobs/u1/${"cd".repeat(32)}`, "PUT", "Content-Type, X-Amz-Content-Sha256"],
      [`/forms/${form.formId}/manifest`, "GET", "Content-Type"],
    ];
    for (const [path, method, headers] of cases) {
      const res = await preflight(inst, path, method, headers.toLowerCase());
      await res.body?.cancel();
      assert.equal(res.status, 204, path);
      assert.equal(res.headers.get("access-control-allow-origin"), "*", path);
      assert.equal(res.headers.get("access-control-allow-methods"), method, path);
      assert.equal(res.headers.get("access-control-allow-headers"), headers, path);
      assert.equal(res.headers.get("access-control-max-age"), String(PREFLIGHT_MAX_AGE), path);
    }
    for (const path of ["/owner/me", "/admin/users", "/vault/forms", "/owner/blobs/claim"]) {
      const res = await preflight(inst, path, "POST");
      await res.body?.cancel();
      assert.ok(res.status === 404 || res.status === 401, `${path}: ${res.status}`);
      assert.equal(res.headers.get("access-control-allow-origin"), null, path);
    }
    const me = await call(`${inst.url}/owner/me`, {
      token: inst.credentials.ownerToken,
      headers: { origin: SITE },
    });
    assert.equal(me.status, 200);
    assert.equal(me.headers.get("access-control-allow-origin"), null);

    // Answers carry the header, errors too, so a page can read what went wrong.
    const manifest = await call(`${inst.url}/forms/${form.formId}/manifest`, {
      headers: { origin: SITE },
    });
    assert.equal(manifest.status, 200);
    assert.equal(manifest.headers.get("access-control-allow-origin"), "*");
    const bad = await call(`${inst.url}/submissions`, {
      method: "POST",
      headers: { origin: SITE },
      json: { formId: form.formId },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.get("access-control-allow-origin"), "*");
    assert.equal(bad.headers.get("access-control-expose-headers"), "Retry-After");
    const slot = await call(`${inst.url}/submissions/upload-slot`, {
      method: "POST",
      headers: { origin: SITE },
      json: { recipientUserId: "nobody", hash: "0".repeat(64) },
    });
    assert.equal(slot.status, 400);
    assert.equal(slot.headers.get("access-control-allow-origin"), "*");
  } finally {
    await inst.close();
  }
});

Deno.test("a form's allowed origins are signed into its manifest and enforced", async () => {
  const inst = await startInstance();
  try {
    const token = inst.credentials.ownerToken;
    const { db } = await vaultForm(inst, "Other", FIELDS);
    const refused = await call(`${inst.url}/vault/forms`, {
      method: "POST",
      token,
      json: { databaseId: db.id, title: "T", fields: FIELDS, allowedOrigins: ["https://x/"] },
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.field, "allowedOrigins.0");
    const created = await call(`${inst.url}/vault/forms`, {
      method: "POST",
      token,
      json: {
        databaseId: db.id,
        title: "Closed",
        fields: FIELDS,
        allowedOrigins: [SITE],
        publish: true,
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(created.body.allowedOrigins, [SITE]);
    const formId = created.body.formId;
    const pin = (await call(`${inst.url}/vault/manifest-key`, { token })).body.fingerprint;
    // Verified against the pin: the relay cannot strip or change the list unnoticed.
    const manifest = await fetchManifest(formId, { relayUrl: inst.url, pin });
    assert.deepEqual(manifest.allowedOrigins, [SITE]);

    const evil = "https://evil.example";
    const m1 = await call(`${inst.url}/forms/${formId}/manifest`, { headers: { origin: evil } });
    assert.equal(m1.headers.get("access-control-allow-origin"), null);
    const m2 = await call(`${inst.url}/forms/${formId}/manifest`, { headers: { origin: SITE } });
    assert.equal(m2.headers.get("access-control-allow-origin"), SITE);
    assert.match(m2.headers.get("vary") ?? "", /Origin/);

    const post = (origin?: string, json?: unknown) =>
      call(`${inst.url}/submissions`, {
        method: "POST",
        headers: origin ? { origin } : {},
        json,
      });
    const blocked = await post(evil, await envelopeFor(inst, formId, pin));
    assert.equal(blocked.status, 403);
    assert.equal(blocked.body.error.code, "origin_not_allowed");
    const fp = db.fingerprint;
    const queue = await call(`${inst.url}/owner/queues/${fp}`, { token });
    assert.equal(queue.body.items.length, 0, "nothing was stored");
    for (const origin of [SITE, new URL(inst.url).origin, undefined]) {
      const ok = await post(origin, await envelopeFor(inst, formId, pin));
      assert.equal(ok.status, 200, `${origin}: ${JSON.stringify(ok.body)}`);
    }
    // Updating the form without the list keeps it; an empty list opens the form again.
    const kept = await call(`${inst.url}/vault/forms/${formId}`, {
      method: "PUT",
      token,
      json: { fields: FIELDS },
    });
    assert.deepEqual(kept.body.allowedOrigins, [SITE]);
    const opened = await call(`${inst.url}/vault/forms/${formId}`, {
      method: "PUT",
      token,
      json: { fields: FIELDS, allowedOrigins: [], publish: true },
    });
    assert.deepEqual(opened.body.allowedOrigins, []);
    const now = await post(evil, await envelopeFor(inst, formId, pin));
    assert.equal(now.status, 200);
  } finally {
    await inst.close();
  }
});
