/**
 * The auth rules over real HTTP, on every family of owner routes: which token kind each gate
 * takes, and another owner's resource answered exactly like a missing one.
 */
import assert from "node:assert/strict";
import { random, sha256 } from "../blobs/_helpers.ts";
import { otherUser, upload } from "../blobs/_http.ts";
import { call, startInstance } from "../_support/server.ts";
import { secondPerson } from "../_support/people.ts";
import { vaultForm } from "../_support/vault.ts";

const HASH = "a".repeat(64);

Deno.test("owner routes take owner tokens only; /admin/users an admin token only", async () => {
  const inst = await startInstance();
  try {
    const { ownerToken, adminToken } = inst.credentials;
    const ownerRoutes = [
      "/owner/me",
      "/vault/forms",
      "/owner/forms/contact/webhooks",
      `/submissions/blob/${inst.credentials.userId}/${HASH}`,
    ];
    for (const path of ownerRoutes) {
      const none = await call(`${inst.url}${path}`);
      assert.equal(none.status, 401, path);
      assert.equal(none.body.error.code, "unauthorized");
      assert.equal(none.headers.get("www-authenticate"), "Bearer");
      const admin = await call(`${inst.url}${path}`, { token: adminToken });
      assert.equal(admin.status, 403, path);
      assert.deepEqual(admin.body.error, {
        code: "forbidden",
        message: "This needs an owner token",
      });
    }
    const asOwner = await call(`${inst.url}/admin/users`, {
      method: "POST",
      token: ownerToken,
      json: { name: "x" },
    });
    assert.equal(asOwner.status, 403);
    assert.equal(asOwner.body.error.message, "This needs an admin token");
    const revokedLike = await call(`${inst.url}/owner/me`, { token: `${ownerToken}x` });
    assert.equal(revokedLike.status, 401);
    assert.equal(revokedLike.body.error.message, "Invalid or revoked token");
  } finally {
    await inst.close();
  }
});

Deno.test("another owner's form, queue and file answer like missing ones", async () => {
  const inst = await startInstance();
  try {
    const { form, db } = await vaultForm(inst, "Contact", [
      { id: "name", kind: "text", label: "Name" },
    ]);
    const bytes = random(64);
    await upload(inst, bytes);
    const hash = sha256(bytes);
    const mallory = await otherUser(inst);
    // Vault and webhook routes take a person's token: Mallory as a person of no database.
    const person = await secondPerson(inst, "mallory");
    const tokenFor = (path: string) =>
      path.startsWith("/vault/") || path.includes("/webhooks") ? person : mallory.token;
    const cases: [string, string, string][] = [
      [`/vault/forms/${form.formId}`, `/vault/forms/nope`, "form_not_found"],
      [`/vault/forms/${form.formId}/records`, `/vault/forms/nope/records`, "form_not_found"],
      [`/owner/forms/${form.formId}/webhooks`, `/owner/forms/nope/webhooks`, "form_not_found"],
      [`/owner/queues/${db.fingerprint}`, `/owner/queues/${"0".repeat(64)}`, "recipient_not_found"],
      [
        `/submissions/blob/${inst.credentials.userId}/${hash}`,
        `/submissions/blob/${mallory.id}/${hash}`,
        "blob_not_found",
      ],
    ];
    for (const [foreignPath, missingPath, code] of cases) {
      // The owner itself reaches it.
      const own = await call(`${inst.url}${foreignPath}`, { token: inst.credentials.ownerToken });
      assert.equal(own.status, 200, `${foreignPath}: ${JSON.stringify(own.body)}`);
      const foreign = await call(`${inst.url}${foreignPath}`, { token: tokenFor(foreignPath) });
      const missing = await call(`${inst.url}${missingPath}`, { token: tokenFor(missingPath) });
      assert.equal(foreign.status, 404, foreignPath);
      assert.equal(foreign.body.error.code, code, foreignPath);
      assert.equal(missing.status, 404, missingPath);
      assert.equal(missing.body.error.code, code, missingPath);
    }
    // A form on another owner's database: the database is not found, as a missing one.
    for (const databaseId of [db.id, "0".repeat(32)]) {
      const created = await call(`${inst.url}/vault/forms`, {
        method: "POST",
        token: person,
        json: { databaseId, title: "Mine", fields: [{ id: "a", kind: "text", label: "A" }] },
      });
      assert.equal(created.status, 404, databaseId);
      assert.equal(created.body.error.code, "database_not_found");
    }
  } finally {
    await inst.close();
  }
});
