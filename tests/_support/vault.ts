/**
 * Vault fixture: a database, a published form of `fields`, and the manifest-key pin.
 */
import assert from "node:assert/strict";
import { call, type TestInstance } from "./server.ts";

/**
 * Creates a database and publishes a form of `fields` to it, through the owner API; `settings`
 * adds to the create request (e.g. `{ files: "plain" }`, `{ drafts: true }`).
 */
export async function vaultForm(
  inst: { url: string; credentials: { ownerToken: string } },
  title: string,
  fields: unknown[],
  settings: Record<string, unknown> = {},
  token: string = inst.credentials.ownerToken,
) {
  const db = await call(`${inst.url}/vault/databases`, {
    method: "POST",
    token,
    json: { name: "main" },
  });
  assert.equal(db.status, 201, JSON.stringify(db.body));
  const form = await call(`${inst.url}/vault/forms`, {
    method: "POST",
    token,
    json: { databaseId: db.body.id, title, fields, ...settings, publish: true },
  });
  assert.equal(form.status, 201, JSON.stringify(form.body));
  assert.equal(form.body.publishedVersion, 1);
  const key = await call(`${inst.url}/vault/manifest-key`, { token });
  return { token, db: db.body, form: form.body, pin: key.body.fingerprint as string };
}

/** Creates a user named `name` (`user add --name`, over the admin API); its owner token. */
export async function namedOwner(inst: TestInstance, name: string): Promise<string> {
  const user = await call(`${inst.url}/admin/users`, {
    method: "POST",
    token: inst.credentials.adminToken,
    json: { name },
  });
  assert.equal(user.status, 201, JSON.stringify(user.body));
  return user.body.ownerToken;
}
