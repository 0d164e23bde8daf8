/**
 * The contract of the person tokens port (src/store/ports/person_tokens.ts), for any
 * implementation: `personTokensContract("kv", make)` registers one `Deno.test` per guarantee.
 */
import assert from "node:assert/strict";
import { contractTests, type MakePort } from "./_suite.ts";
import type { PersonToken, PersonTokensPort } from "../../../src/store/ports/person_tokens.ts";

/** Makes a fresh, empty port and closes it. */
export type MakePersonTokens = MakePort<PersonTokensPort>;

const token = (
  id: string,
  personId = "p1",
  createdAt = "2030-01-01T00:00:00.000Z",
): PersonToken => ({
  id,
  personId,
  name: `token ${id}`,
  scopes: ["records:read", "forms:write"],
  secretHash: "ab".repeat(32),
  createdAt,
  expiresAt: null,
  lastUsedAt: null,
});

/** Registers the person tokens contract's tests for implementation `name`. */
export function personTokensContract(name: string, make: MakePersonTokens): void {
  const test = contractTests("person tokens", name, make);

  test("tokens are saved, found by id, and listed per person newest first", async (p) => {
    assert.equal(await p.get("t1"), null);
    const expiring = { ...token("t1"), expiresAt: "2031-01-01T00:00:00.000Z" };
    await p.save(expiring);
    await p.save(token("t2", "p1", "2030-02-01T00:00:00.000Z"));
    await p.save(token("t3", "p2"));
    assert.deepEqual(await p.get("t1"), expiring);
    assert.deepEqual((await p.list("p1")).map((t) => t.id), ["t2", "t1"]);
    assert.deepEqual(await p.list("p2"), [token("t3", "p2")]);
    assert.deepEqual(await p.list("p9"), []);
  });

  test("a token saved again under its id is replaced", async (p) => {
    await p.save(token("t1"));
    const renamed = { ...token("t1"), name: "laptop", scopes: ["admin" as const] };
    await p.save(renamed);
    assert.deepEqual(await p.get("t1"), renamed);
    assert.deepEqual(await p.list("p1"), [renamed]);
  });

  test("a revoked token is gone; revoking again answers null", async (p) => {
    await p.save(token("t1"));
    await p.save(token("t2"));
    assert.deepEqual(await p.revoke("t1"), token("t1"));
    assert.equal(await p.get("t1"), null);
    assert.deepEqual((await p.list("p1")).map((t) => t.id), ["t2"]);
    assert.equal(await p.revoke("t1"), null);
  });

  test("a use is written at most once a minute, and never brings a revoked token back", async (p) => {
    await p.save(token("t1"));
    await p.touch("t1", "2030-03-01T10:00:00.000Z");
    assert.equal((await p.get("t1"))?.lastUsedAt, "2030-03-01T10:00:00.000Z");
    await p.touch("t1", "2030-03-01T10:00:30.000Z");
    assert.equal((await p.get("t1"))?.lastUsedAt, "2030-03-01T10:00:00.000Z", "too soon");
    await p.touch("t1", "2030-03-01T10:01:00.000Z");
    assert.equal((await p.get("t1"))?.lastUsedAt, "2030-03-01T10:01:00.000Z");
    await p.revoke("t1");
    await p.touch("t1", "2030-03-01T11:00:00.000Z");
    assert.equal(await p.get("t1"), null);
    await p.touch("never", "2030-03-01T11:00:00.000Z");
    assert.equal(await p.get("never"), null);
  });

  test("a token saved by one process is used and revoked by another", async (p, q) => {
    await p.save(token("t1"));
    await q.touch("t1", "2030-03-01T10:00:00.000Z");
    assert.equal((await p.get("t1"))?.lastUsedAt, "2030-03-01T10:00:00.000Z");
    const revoked = await Promise.all([p.revoke("t1"), q.revoke("t1")]);
    assert.equal(revoked.filter((t) => t?.id === "t1").length, 1, "one revocation answers it");
    assert.equal(await q.get("t1"), null);
    assert.deepEqual(await p.list("p1"), []);
  });
}
