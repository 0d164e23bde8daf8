/**
 * The web routes over HTTP: the form page's headers (strict CSP, no inline script), the
 * page of an unknown form, the assets at hashed paths with a year of cache, the embed script.
 */
import assert from "node:assert/strict";
import { ASSETS, EMBED_SCRIPT, FORM_SCRIPT, FORM_STYLE } from "../../src/web/assets.ts";
import { pageCsp } from "../../src/web/csp.ts";
import { startInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";

Deno.test("the form page: strict CSP, no inline script, its assets linked", async () => {
  const inst = await startInstance();
  try {
    const { form } = await vaultForm(inst, "Contact <us>", [
      { id: "name", label: "Name", kind: "text" },
    ]);
    const res = await fetch(`${inst.url}/f/${form.formId}`);
    const html = await res.text();
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
    const csp = res.headers.get("content-security-policy")!;
    assert.equal(csp, pageCsp({ relayUrl: inst.url }));
    assert.match(csp, /default-src 'none'; script-src 'self'; style-src 'self';/);
    assert.doesNotMatch(csp, /unsafe/);
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(res.headers.get("referrer-policy"), "no-referrer");
    assert.match(html, /^<!doctype html><html lang="en">/);
    assert.match(html, /<title>Contact &lt;us&gt;<\/title>/);
    assert.match(html, new RegExp(`<script type="module" src="${FORM_SCRIPT.path}"></script>`));
    assert.match(html, new RegExp(`<link rel="stylesheet" href="${FORM_STYLE.path}"/?>`));
    assert.doesNotMatch(html, /<script(?![^>]*\ssrc=)[^>]*>/, "no inline script");
    assert.doesNotMatch(html, /\son[a-z]+="/, "no inline event handler");
    assert.match(html, /<form id="sp-form" novalidate/);
    assert.match(html, /<button type="submit" id="sp-submit" disabled>Submit<\/button>/);

    const missing = await fetch(`${inst.url}/f/nope`);
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /There is no published form “nope” here/);
    const bad = await fetch(`${inst.url}/f/${"x".repeat(300)}`);
    assert.equal(bad.status, 404);
    await bad.body?.cancel();
  } finally {
    await inst.close();
  }
});

Deno.test("assets are served at hashed paths with a year of cache; the embed at /embed.js", async () => {
  const inst = await startInstance();
  try {
    assert.equal(ASSETS.size, 3);
    for (const asset of ASSETS.values()) {
      assert.match(asset.path, /^\/assets\/[a-z]+\.[0-9a-f]{16}\.(js|css)$/);
      // Deno's fetch asks for gzip and decodes it; a client that does not gets it plain.
      const res = await fetch(inst.url + asset.path);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-encoding"), "gzip");
      assert.equal(await res.text(), asset.body);
      const plain = await fetch(inst.url + asset.path, {
        headers: { "accept-encoding": "identity" },
      });
      assert.equal(plain.headers.get("content-encoding"), null);
      assert.equal(await plain.text(), asset.body);
      assert.equal(res.headers.get("content-type"), asset.type);
      assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
    }
    const embed = await fetch(`${inst.url}/embed.js`);
    assert.equal(await embed.text(), EMBED_SCRIPT.body);
    assert.equal(embed.headers.get("cache-control"), "public, max-age=3600");
    const unknown = await fetch(`${inst.url}/assets/form.0000000000000000.js`);
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error.code, "not_found");
  } finally {
    await inst.close();
  }
});

Deno.test("a form restricted to some origins may be framed by those only", async () => {
  const inst = await startInstance();
  try {
    const { db } = await vaultForm(inst, "Open", [{ id: "a", label: "A", kind: "text" }]);
    const created = await fetch(`${inst.url}/vault/forms`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${inst.credentials.ownerToken}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({
        databaseId: db.id,
        title: "Closed",
        fields: [{ id: "a", label: "A", kind: "text" }],
        allowedOrigins: ["https://a.example", "https://b.example"],
        publish: true,
      }),
    });
    const { formId } = await created.json();
    const res = await fetch(`${inst.url}/f/${formId}`);
    await res.body?.cancel();
    assert.match(
      res.headers.get("content-security-policy")!,
      /frame-ancestors https:\/\/a\.example https:\/\/b\.example$/,
    );
  } finally {
    await inst.close();
  }
});
