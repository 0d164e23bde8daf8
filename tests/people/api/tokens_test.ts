/**
 * People's API tokens over real HTTP (`/vault/tokens`): made, listed (never a secret), used
 * on real routes with their scopes enforced, expired, revoked at once; another person's
 * token answers like a missing one; an instance admin may name anyone's; a `relay:queue`
 * token reads a queue at the relay and stops there at once when revoked.
 */
import assert from "node:assert/strict";
import { call, startInstance, type TestInstance } from "../../_support/server.ts";
import { addPerson } from "../../_support/people.ts";
import { vaultForm } from "../../_support/vault.ts";

const FIELDS = [{ id: "name", kind: "text", label: "Name" }];

const test = (name: string, fn: (inst: TestInstance) => Promise<void>) =>
  Deno.test({
    name: `api tokens: ${name}`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const inst = await startInstance();
      try {
        await fn(inst);
      } finally {
        await inst.close();
      }
    },
  });

/** Makes a token as `token`'s person; the whole answer. */
function create(inst: TestInstance, token: string, json: unknown) {
  return call(`${inst.url}/vault/tokens`, { method: "POST", token, json });
}

test("made once, listed with its last use, never with a secret", async (inst) => {
  const owner = inst.credentials.ownerToken;
  const made = await create(inst, owner, {
    name: "laptop",
    scopes: ["forms:write", "records:read"],
    expiresInDays: 30,
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.match(made.body.token, /^spt_[0-9a-f]{24}_[A-Za-z0-9_-]{43}$/);
  assert.equal(made.body.token.split("_")[1], made.body.id);
  assert.deepEqual(made.body.scopes, ["records:read", "forms:write"], "in the order of SCOPES");
  const days = (Date.parse(made.body.expiresAt) - Date.now()) / 86_400_000;
  assert.ok(days > 29.9 && days <= 30, `expires in ${days} days`);
  assert.equal(made.body.lastUsedAt, null);
  assert.equal(made.body.secretHash, undefined);

  const used = await call(`${inst.url}/vault/forms`, { token: made.body.token });
  assert.equal(used.status, 200);
  const list = await call(`${inst.url}/vault/tokens`, { token: owner });
  assert.equal(list.status, 200);
  const mine = list.body.items.find((t: { id: string }) => t.id === made.body.id);
  assert.equal(mine.name, "laptop");
  assert.ok(mine.lastUsedAt, "its use is recorded");
  const text = JSON.stringify(list.body);
  assert.ok(!text.includes(made.body.token.split("_").slice(2).join("_")), "no secret in the list");
  assert.ok(!text.includes("secretHash"));
  // init's owner token is the first person's token with every scope, listed too.
  const first = list.body.items.find((t: { id: string }) => t.id === owner.split("_")[1]);
  assert.equal(first.scopes.length, 6);
});

test("scopes are enforced on real routes: records:read lists records, edits no form", async (inst) => {
  const owner = inst.credentials.ownerToken;
  const { form } = await vaultForm(inst, "Scoped", FIELDS);
  const reader = await create(inst, owner, { name: "reader", scopes: ["records:read"] });
  const token = reader.body.token;
  const records = await call(`${inst.url}/vault/forms/${form.formId}/records`, { token });
  assert.equal(records.status, 200, JSON.stringify(records.body));
  const edit = await call(`${inst.url}/vault/forms/${form.formId}`, {
    method: "PUT",
    token,
    json: { title: "Changed", fields: FIELDS },
  });
  assert.equal(edit.status, 403);
  assert.equal(edit.body.error.code, "insufficient_scope");
  const record = await call(`${inst.url}/vault/forms/${form.formId}/records`, {
    method: "POST",
    token,
    json: { values: { name: "Ada" } },
  });
  assert.equal(record.body.error.code, "insufficient_scope");
});

test("a token never does more than its person's role", async (inst) => {
  const { db, form } = await vaultForm(inst, "Roles", FIELDS);
  const viewer = await addPerson(inst, { databaseId: db.id, role: "viewer" });
  // A viewer's token asked with forms:write is stored so, and still refused by the role.
  const made = await create(inst, viewer.token, { name: "wide", scopes: ["forms:write"] });
  assert.equal(made.status, 201);
  const edit = await call(`${inst.url}/vault/forms/${form.formId}`, {
    method: "PUT",
    token: made.body.token,
    json: { title: "Changed", fields: FIELDS },
  });
  assert.equal(edit.status, 403);
  assert.equal(edit.body.error.code, "forbidden");
  // admin and relay:queue: instance admins only.
  for (const scope of ["admin", "relay:queue"]) {
    const refused = await create(inst, viewer.token, { name: "x", scopes: [scope] });
    assert.equal(refused.status, 403, scope);
    assert.equal(refused.body.error.code, "forbidden");
  }
});

test("an expired token is refused (401); a revoked one at once", async (inst) => {
  const owner = inst.credentials.ownerToken;
  const made = await create(inst, owner, {
    name: "short",
    scopes: ["records:read"],
    expiresInDays: 1,
  });
  const ports = inst.server.vault!.store;
  const row = (await ports.personTokens.get(made.body.id))!;
  // A day later: the stored expiry is in the past.
  await ports.personTokens.save({ ...row, expiresAt: new Date(Date.now() - 1000).toISOString() });
  const expired = await call(`${inst.url}/vault/forms`, { token: made.body.token });
  assert.equal(expired.status, 401);
  assert.equal(expired.body.error.code, "unauthorized");

  const other = await create(inst, owner, { name: "gone soon", scopes: ["records:read"] });
  assert.equal((await call(`${inst.url}/vault/forms`, { token: other.body.token })).status, 200);
  const revoked = await call(`${inst.url}/vault/tokens/${other.body.id}`, {
    method: "DELETE",
    token: owner,
  });
  assert.equal(revoked.status, 204);
  const after = await call(`${inst.url}/vault/forms`, { token: other.body.token });
  assert.equal(after.status, 401);
  const again = await call(`${inst.url}/vault/tokens/${other.body.id}`, {
    method: "DELETE",
    token: owner,
  });
  assert.equal(again.status, 404);
  assert.equal(again.body.error.code, "token_not_found");
});

test("another person's token answers like a missing one; an admin may name anyone's", async (inst) => {
  const owner = inst.credentials.ownerToken;
  const alice = await addPerson(inst);
  const bob = await addPerson(inst);
  const missing = await call(`${inst.url}/vault/tokens/${"0".repeat(24)}`, {
    method: "DELETE",
    token: bob.token,
  });
  const others = await call(`${inst.url}/vault/tokens/${alice.tokenId}`, {
    method: "DELETE",
    token: bob.token,
  });
  assert.deepEqual([others.status, others.body.error.code], [404, "token_not_found"]);
  assert.equal(
    others.body.error.message.replace(alice.tokenId, "ID"),
    missing.body.error.message.replace("0".repeat(24), "ID"),
  );
  const bobs = await call(`${inst.url}/vault/tokens`, { token: bob.token });
  assert.deepEqual(bobs.body.items.map((t: { id: string }) => t.id), [bob.tokenId]);
  // A person who is no instance admin names no one else.
  const peek = await call(`${inst.url}/vault/tokens?personId=${alice.personId}`, {
    token: bob.token,
  });
  assert.deepEqual([peek.status, peek.body.error.code], [403, "forbidden"]);
  // The instance admin (init's person) lists and revokes Alice's token.
  const listed = await call(`${inst.url}/vault/tokens?personId=${alice.personId}`, {
    token: owner,
  });
  assert.deepEqual(listed.body.items.map((t: { id: string }) => t.id), [alice.tokenId]);
  const unknown = await call(`${inst.url}/vault/tokens?personId=nobody`, { token: owner });
  assert.deepEqual([unknown.status, unknown.body.error.code], [404, "person_not_found"]);
  const without = await call(`${inst.url}/vault/tokens/${alice.tokenId}`, {
    method: "DELETE",
    token: owner,
  });
  assert.equal(without.status, 404, "without personId: only the admin's own tokens");
  const revoked = await call(
    `${inst.url}/vault/tokens/${alice.tokenId}?personId=${alice.personId}`,
    {
      method: "DELETE",
      token: owner,
    },
  );
  assert.equal(revoked.status, 204);
  assert.equal((await call(`${inst.url}/vault/forms`, { token: alice.token })).status, 401);
  // An admin's token without the admin scope names no one else either.
  const narrow = await create(inst, owner, { name: "narrow", scopes: ["records:read"] });
  const narrowPeek = await call(`${inst.url}/vault/tokens?personId=${bob.personId}`, {
    token: narrow.body.token,
  });
  assert.deepEqual([narrowPeek.status, narrowPeek.body.error.code], [403, "insufficient_scope"]);
});

test("a token makes only tokens with its own scopes, expiring no later than itself", async (inst) => {
  const owner = inst.credentials.ownerToken;
  const maker = await create(inst, owner, {
    name: "maker",
    scopes: ["records:read", "forms:write"],
    expiresInDays: 2,
  });
  const wider = await create(inst, maker.body.token, {
    name: "wider",
    scopes: ["records:read", "webhooks:write"],
  });
  assert.deepEqual([wider.status, wider.body.error.code], [403, "insufficient_scope"]);
  assert.match(wider.body.error.message, /webhooks:write/);
  const narrower = await create(inst, maker.body.token, {
    name: "narrower",
    scopes: ["records:read"],
    expiresInDays: 365,
  });
  assert.equal(narrower.status, 201);
  assert.equal(narrower.body.expiresAt, maker.body.expiresAt, "capped at its maker's expiry");
  const never = await create(inst, maker.body.token, { name: "n", scopes: ["records:read"] });
  assert.equal(never.body.expiresAt, maker.body.expiresAt);
});

test("malformed requests are 400s, never 5xx; at most 100 tokens", async (inst) => {
  const owner = inst.credentials.ownerToken;
  for (
    const body of [
      {},
      { name: "x", scopes: [] },
      { name: "x", scopes: ["records:delete"] },
      { name: "", scopes: ["records:read"] },
      { name: "   ", scopes: ["records:read"] },
      { name: "x".repeat(101), scopes: ["records:read"] },
      { name: "x", scopes: ["records:read"], expiresInDays: 0 },
      { name: "x", scopes: ["records:read"], expiresInDays: 1.5 },
      { name: "x", scopes: ["records:read"], expiresInDays: 3651 },
      { name: "x", scopes: ["records:read"], extra: true },
    ]
  ) {
    const res = await create(inst, owner, body);
    assert.equal(res.status, 400, JSON.stringify(body));
  }
  const bad = await call(`${inst.url}/vault/tokens/not-an-id`, { method: "DELETE", token: owner });
  assert.equal(bad.status, 400);
  const ports = inst.server.vault!.store;
  const personId = inst.credentials.userId;
  const mine = (await ports.personTokens.list(personId)).length;
  const template = (await ports.personTokens.list(personId))[0];
  for (let i = mine; i < 100; i++) {
    await ports.personTokens.save({ ...template, id: i.toString(16).padStart(24, "0") });
  }
  const full = await create(inst, owner, { name: "one more", scopes: ["records:read"] });
  assert.deepEqual([full.status, full.body.error.code], [409, "too_many_tokens"]);
});

test("a relay:queue token reads a queue at the relay and stops there at once when revoked", async (inst) => {
  const owner = inst.credentials.ownerToken;
  const { db } = await vaultForm(inst, "Queue", FIELDS);
  const expiring = await create(inst, owner, {
    name: "worker",
    scopes: ["relay:queue"],
    expiresInDays: 30,
  });
  assert.deepEqual([expiring.status, expiring.body.error.field], [400, "expiresInDays"]);
  const worker = await create(inst, owner, { name: "worker", scopes: ["relay:queue"] });
  assert.equal(worker.status, 201, JSON.stringify(worker.body));
  const queue = `${inst.url}/owner/queues/${db.fingerprint}`;
  const read = await call(queue, { token: worker.body.token });
  assert.equal(read.status, 200, JSON.stringify(read.body));
  assert.ok(Array.isArray(read.body.items));
  const me = await call(`${inst.url}/owner/me`, { token: worker.body.token });
  assert.equal(me.body.user.id, inst.credentials.userId, "the instance's relay account");
  // Without relay:queue a person's token is no relay token.
  const plain = await create(inst, owner, { name: "plain", scopes: ["records:read"] });
  assert.equal((await call(queue, { token: plain.body.token })).status, 401);
  const revoked = await call(`${inst.url}/vault/tokens/${worker.body.id}`, {
    method: "DELETE",
    token: owner,
  });
  assert.equal(revoked.status, 204);
  assert.equal((await call(queue, { token: worker.body.token })).status, 401);
  assert.equal(await inst.server.vault!.store.personTokens.get(worker.body.id), null);
});

test("the token routes are in the OpenAPI document, with the owner security", async (inst) => {
  const doc = (await call(`${inst.url}/openapi.json`)).body;
  for (
    const [path, method] of [["/vault/tokens", "get"], ["/vault/tokens", "post"], [
      "/vault/tokens/{tokenId}",
      "delete",
    ]]
  ) {
    const op = doc.paths[path]?.[method];
    assert.ok(op, `${method} ${path}`);
    assert.deepEqual(op.security, [{ ownerToken: [] }]);
    assert.deepEqual(op.tags, ["tokens"]);
  }
  assert.equal(doc.components.schemas.PersonToken.properties.secretHash, undefined);
});
