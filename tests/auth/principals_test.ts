import assert from "node:assert/strict";
import { principalOf } from "../../src/auth/principals.ts";
import type { ApiToken } from "../../src/store/ports/identity.ts";

const row = (kind: ApiToken["kind"], userId: string | null): ApiToken => ({
  id: "0123456789abcdef01234567",
  kind,
  userId,
  secretHash: "0".repeat(64),
  createdAt: "2026-01-01T00:00:00.000Z",
});

Deno.test("principalOf: an admin row is an admin, without a user", () => {
  assert.deepEqual(principalOf(row("admin", null)), {
    kind: "admin",
    tokenId: "0123456789abcdef01234567",
  });
});

Deno.test("principalOf: an owner row is an owner with its user; without one, nobody", () => {
  assert.deepEqual(principalOf(row("owner", "u1")), {
    kind: "owner",
    tokenId: "0123456789abcdef01234567",
    userId: "u1",
  });
  assert.equal(principalOf(row("owner", null)), null);
  assert.equal(principalOf(row("owner", "")), null);
});
