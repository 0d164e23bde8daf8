/**
 * Every route family is rate limited over real HTTP, including the anonymous reads (manifests,
 * pre-signed blob reads) and the vault's owner API (limited before authentication).
 */
import assert from "node:assert/strict";
import { publishForm, registerDatabase } from "../_support/owner.ts";
import { call, startInstance } from "../_support/server.ts";

Deno.test("rate limits: manifests, blob reads and /vault each have their own bucket", async () => {
  const one = { PER_MINUTE: "1", BURST: "1" };
  const env: Record<string, string> = { SEALPOST_RATE_LIMITS_ENABLED: "true" };
  for (const family of ["MANIFESTS", "BLOB_READS", "VAULT"]) {
    for (const [key, value] of Object.entries(one)) {
      env[`SEALPOST_RATE_LIMITS_${family}_${key}`] = value;
    }
  }
  const inst = await startInstance(env);
  try {
    const db = await registerDatabase(inst);
    const formId = "contact";
    await publishForm(inst, db, formId);
    const urls = [
      `${inst.url}/forms/${formId}/manifest`,
      `${inst.url}/blobs/${inst.credentials.userId}/${"a".repeat(64)}?expires=1&sig=x`,
      `${inst.url}/vault/forms`,
    ];
    for (const url of urls) {
      const first = await call(url, { token: inst.credentials.ownerToken });
      assert.notEqual(first.status, 429, url);
      const second = await call(url, { token: inst.credentials.ownerToken });
      assert.equal(second.status, 429, url);
      assert.equal(second.body.error.code, "rate_limited");
      assert.ok(Number(second.headers.get("retry-after")) >= 1);
    }
    // Spoofed X-Forwarded-For (no trusted proxies configured) picks no fresh bucket.
    const spoofed = await call(urls[0], { headers: { "x-forwarded-for": "198.51.100.77" } });
    assert.equal(spoofed.status, 429);
    // Families are independent: a submission-side route still answers.
    assert.equal((await call(`${inst.url}/healthz`)).status, 200);
  } finally {
    await inst.close();
  }
});

Deno.test("rate limits: the form page, its assets, the embed script and /openapi.json share the public-read bucket; the console has its own", async () => {
  const env: Record<string, string> = {
    SEALPOST_RATE_LIMITS_ENABLED: "true",
    SEALPOST_RATE_LIMITS_MANIFESTS_PER_MINUTE: "1",
    SEALPOST_RATE_LIMITS_MANIFESTS_BURST: "3",
    SEALPOST_RATE_LIMITS_VAULT_PER_MINUTE: "1",
    SEALPOST_RATE_LIMITS_VAULT_BURST: "1",
  };
  const inst = await startInstance(env);
  try {
    const paths = ["/f/contact", "/embed.js", "/openapi.json"];
    for (const path of paths) assert.notEqual((await call(`${inst.url}${path}`)).status, 429);
    // The bucket of three is spent: every public read of this address waits now.
    for (const path of [...paths, "/assets/form.0.js", "/forms/contact/manifest"]) {
      const limited = await call(`${inst.url}${path}`);
      assert.equal(limited.status, 429, path);
      assert.equal(limited.body.error.code, "rate_limited");
    }
    // The console counts apart from the vault API (its own buckets, the vault's rule).
    assert.notEqual((await call(`${inst.url}/console`)).status, 429);
    assert.equal((await call(`${inst.url}/console`)).status, 429);
    assert.notEqual((await call(`${inst.url}/vault/forms`)).status, 429);
  } finally {
    await inst.close();
  }
});
