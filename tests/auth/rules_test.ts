import assert from "node:assert/strict";
import {
  type AdminPrincipal,
  assertOwns,
  authorize,
  bearerOf,
  type OwnerPrincipal,
} from "../../src/auth/index.ts";
import { Forbidden, NotFound, Unauthenticated } from "../../src/errors/index.ts";

const OWNER: OwnerPrincipal = { kind: "owner", tokenId: "t1", userId: "u1" };
const ADMIN: AdminPrincipal = { kind: "admin", tokenId: "t2" };

Deno.test("bearerOf: the credential of a Bearer header, any case of the scheme", () => {
  assert.equal(bearerOf("Bearer spo_abc"), "spo_abc");
  assert.equal(bearerOf("bearer   spo_abc"), "spo_abc");
  for (const header of [undefined, null, "", "Bearer", "Bearer a b", "Basic dXNlcg==", "spo_abc"]) {
    assert.equal(bearerOf(header), null, String(header));
  }
});

Deno.test("authorize: the principal of the wanted kind passes, typed", () => {
  const owner = authorize(OWNER, "owner");
  assert.equal(owner.userId, "u1");
  assert.deepEqual(authorize(ADMIN, "admin"), ADMIN);
});

Deno.test("authorize: no principal is 401 unauthorized with a Bearer challenge", () => {
  assert.throws(() => authorize(null, "owner"), (err) => {
    assert.ok(err instanceof Unauthenticated);
    assert.equal(err.code, "unauthorized");
    assert.equal(err.message, "Invalid or revoked token");
    assert.equal(err.challenge, "Bearer");
    return true;
  });
});

Deno.test("authorize: the other kind is forbidden, naming the kind needed", () => {
  assert.throws(() => authorize(ADMIN, "owner"), (err) => {
    assert.ok(err instanceof Forbidden);
    assert.equal(err.code, "forbidden");
    assert.equal(err.message, "This needs an owner token");
    return true;
  });
  assert.throws(
    () => authorize(OWNER, "admin"),
    (err) => err instanceof Forbidden && err.message === "This needs an admin token",
  );
});

Deno.test("assertOwns: another owner's resource and a missing one answer alike", () => {
  const notFound = () => new NotFound("form_not_found", `Form "f" not found`);
  assertOwns("u1", "u1", notFound);
  for (const ownerId of ["u2", null, undefined, ""]) {
    assert.throws(
      () => assertOwns("u1", ownerId, notFound),
      (err) => err instanceof NotFound && err.code === "form_not_found",
      String(ownerId),
    );
  }
});
