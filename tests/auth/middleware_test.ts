/**
 * The route middleware in process (Hono's `app.request`) over an in-memory store: which
 * token passes which gate, what is set on the context, and the 401/403 answers.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import {
  type AuthEnv,
  editTokenOf,
  mintToken,
  requireAdmin,
  requireOwner,
} from "../../src/auth/index.ts";
import { errorResponse } from "../../src/http/errors.ts";
import type { ApiToken } from "../../src/store/ports/identity.ts";

async function fixture() {
  const owner = await mintToken("owner", "u1");
  const admin = await mintToken("admin", null);
  const rows = new Map<string, ApiToken>([owner, admin].map(({ row }) => [row.id, row]));
  const tokens = { getToken: (id: string) => Promise.resolve(rows.get(id) ?? null) };
  const app = new Hono<AuthEnv>();
  app.get("/owner", requireOwner(tokens), (c) => c.json(c.var.owner));
  app.get("/admin", requireAdmin(tokens), (c) => c.json(c.var.admin));
  app.get("/edit", (c) => c.json({ token: editTokenOf(c) }));
  app.onError(errorResponse);
  const get = async (path: string, authorization?: string) => {
    const response = await app.request(path, {
      headers: authorization ? { authorization } : {},
    });
    return {
      status: response.status,
      challenge: response.headers.get("www-authenticate"),
      body: await response.json(),
    };
  };
  return { rows, owner, admin, get };
}

Deno.test("requireOwner and requireAdmin set their principal on the context", async () => {
  const { owner, admin, get } = await fixture();
  const asOwner = await get("/owner", `Bearer ${owner.token}`);
  assert.equal(asOwner.status, 200);
  assert.deepEqual(asOwner.body, { kind: "owner", tokenId: owner.row.id, userId: "u1" });
  const asAdmin = await get("/admin", `Bearer ${admin.token}`);
  assert.equal(asAdmin.status, 200);
  assert.deepEqual(asAdmin.body, { kind: "admin", tokenId: admin.row.id });
});

Deno.test("no, a malformed or a revoked token: 401 unauthorized, WWW-Authenticate: Bearer", async () => {
  const { rows, owner, get } = await fixture();
  const missing = await get("/owner");
  assert.equal(missing.status, 401);
  assert.equal(missing.challenge, "Bearer");
  assert.deepEqual(missing.body, {
    error: { code: "unauthorized", message: "Missing Authorization: Bearer token" },
  });
  for (const header of ["Basic dXNlcg==", "Bearer spo_bogus"]) {
    const answered = await get("/owner", header);
    assert.equal(answered.status, 401, header);
    assert.equal(answered.challenge, "Bearer");
  }
  rows.delete(owner.row.id); // revoked
  const revoked = await get("/owner", `Bearer ${owner.token}`);
  assert.equal(revoked.status, 401);
  assert.deepEqual(revoked.body, {
    error: { code: "unauthorized", message: "Invalid or revoked token" },
  });
});

Deno.test("the wrong kind of token: 403 forbidden, naming the kind needed", async () => {
  const { owner, admin, get } = await fixture();
  const adminAsOwner = await get("/owner", `Bearer ${admin.token}`);
  assert.equal(adminAsOwner.status, 403);
  assert.equal(adminAsOwner.challenge, null);
  assert.deepEqual(adminAsOwner.body, {
    error: { code: "forbidden", message: "This needs an owner token" },
  });
  const ownerAsAdmin = await get("/admin", `Bearer ${owner.token}`);
  assert.equal(ownerAsAdmin.status, 403);
  assert.equal(ownerAsAdmin.body.error.message, "This needs an admin token");
});

Deno.test("editTokenOf: the bearer as is, or 401 naming the edit token", async () => {
  const { get } = await fixture();
  assert.deepEqual((await get("/edit", "Bearer abc-_123")).body, { token: "abc-_123" });
  const missing = await get("/edit");
  assert.equal(missing.status, 401);
  assert.equal(missing.challenge, "Bearer");
  assert.deepEqual(missing.body, {
    error: { code: "unauthorized", message: "Missing Authorization: Bearer <editToken>" },
  });
});
