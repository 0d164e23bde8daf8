/**
 * Vault fixture: a database, a published form of `fields`, and the manifest-key pin.
 */
import assert from "node:assert/strict";
import { ACCOUNT_FACT } from "../../src/people/bootstrap.ts";
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

/**
 * Makes the instance publish under an account named `name` (`user add --name`, over the admin
 * API): that account becomes the vault's account (new databases are created under it, and its
 * name is the owner's name on the form page) and gets a person, as bootstrap does for accounts;
 * answers its owner token (the person's token on first use).
 */
export async function namedOwner(inst: TestInstance, name: string): Promise<string> {
  const user = await call(`${inst.url}/admin/users`, {
    method: "POST",
    token: inst.credentials.adminToken,
    json: { name },
  });
  assert.equal(user.status, 201, JSON.stringify(user.body));
  const ports = inst.server.vault!.store;
  const now = new Date().toISOString();
  const id: string = user.body.user.id;
  await ports.vaultDatabases.setFact(ACCOUNT_FACT, id);
  await ports.people.create({
    id,
    email: `${id}@test.invalid`,
    name,
    passwordHash: null,
    instanceAdmin: true,
    createdAt: now,
    updatedAt: now,
  });
  return user.body.ownerToken;
}
