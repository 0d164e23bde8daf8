/**
 * The contract of the memberships port (src/store/ports/memberships.ts), for any
 * implementation: `membershipsContract("kv", make)` registers one `Deno.test` per guarantee.
 */
import assert from "node:assert/strict";
import { contractTests, type MakePort } from "./_suite.ts";
import type { Membership, MembershipsPort, Role } from "../../../src/store/ports/memberships.ts";

/** Makes a fresh, empty port and closes it. */
export type MakeMemberships = MakePort<MembershipsPort>;

const SINCE = "2030-01-01T00:00:00.000Z";

const member = (databaseId: string, personId: string, role: Role, since = SINCE): Membership => ({
  databaseId,
  personId,
  role,
  since,
});

/** Registers the memberships contract's tests for implementation `name`. */
export function membershipsContract(name: string, make: MakeMemberships): void {
  const test = contractTests("memberships", name, make);

  test("memberships are found both ways, each list in id order", async (p) => {
    assert.equal(await p.get("d1", "p1"), null);
    for (
      const m of [
        member("d2", "p1", "owner"),
        member("d1", "p2", "owner"),
        member("d1", "p1", "viewer"),
        member("d1", "p3", "editor"),
      ]
    ) assert.equal(await p.put(m), "ok");
    assert.deepEqual(await p.get("d1", "p1"), member("d1", "p1", "viewer"));
    assert.deepEqual(await p.ofPerson("p1"), [
      member("d1", "p1", "viewer"),
      member("d2", "p1", "owner"),
    ]);
    assert.deepEqual((await p.ofDatabase("d1")).map((m) => [m.personId, m.role]), [
      ["p1", "viewer"],
      ["p2", "owner"],
      ["p3", "editor"],
    ]);
    assert.deepEqual(await p.ofPerson("p9"), []);
    assert.deepEqual(await p.ofDatabase("d9"), []);
  });

  test("a role change keeps when the person became a member", async (p) => {
    await p.put(member("d1", "p1", "owner"));
    await p.put(member("d1", "p2", "viewer"));
    assert.equal(await p.put(member("d1", "p2", "editor", "2031-01-01T00:00:00.000Z")), "ok");
    assert.deepEqual(await p.get("d1", "p2"), member("d1", "p2", "editor"));
    assert.deepEqual(await p.ofPerson("p2"), [member("d1", "p2", "editor")]);
  });

  test("the last owner is neither demoted nor removed", async (p) => {
    await p.put(member("d1", "p1", "owner"));
    await p.put(member("d1", "p2", "editor"));
    assert.equal(await p.put(member("d1", "p1", "editor")), "last_owner");
    assert.equal(await p.remove("d1", "p1"), "last_owner");
    assert.equal((await p.get("d1", "p1"))?.role, "owner", "nothing written");
    assert.equal(await p.put(member("d1", "p2", "owner")), "ok");
    assert.equal(await p.put(member("d1", "p1", "viewer")), "ok", "another owner is left");
    assert.equal(await p.remove("d1", "p2"), "last_owner");
    assert.equal(await p.put(member("d1", "p2", "owner")), "ok", "an owner made owner again");
    assert.equal(await p.remove("d1", "p1"), "ok", "a viewer leaves");
    assert.equal(await p.remove("d1", "p1"), "missing");
    assert.equal(await p.get("d1", "p1"), null);
    assert.deepEqual(await p.ofPerson("p1"), []);
    assert.deepEqual((await p.ofDatabase("d1")).map((m) => m.personId), ["p2"]);
  });

  test("another database's owners do not count", async (p) => {
    await p.put(member("d1", "p1", "owner"));
    await p.put(member("d2", "p2", "owner"));
    await p.put(member("d2", "p1", "owner"));
    assert.equal(await p.remove("d1", "p1"), "last_owner");
    assert.equal(await p.remove("d2", "p1"), "ok");
    assert.equal(await p.remove("d2", "p2"), "last_owner");
  });

  test(
    "two processes at once: of two demotions or removals of two owners, one applies",
    async (p, q) => {
      for (let round = 0; round < 5; round++) {
        const db = `d${round}`;
        await p.put(member(db, "a", "owner"));
        await q.put(member(db, "b", "owner"));
        const outcomes = round % 2
          ? await Promise.all([p.remove(db, "a"), q.remove(db, "b")])
          : await Promise.all([p.put(member(db, "a", "editor")), q.put(member(db, "b", "viewer"))]);
        assert.deepEqual([...outcomes].sort(), ["last_owner", "ok"], outcomes.join());
        const owners = (await q.ofDatabase(db)).filter((m) => m.role === "owner");
        assert.equal(owners.length, 1);
      }
    },
  );
}
