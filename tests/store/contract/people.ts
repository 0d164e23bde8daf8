/**
 * The contract of the people port (src/store/ports/people.ts), for any implementation:
 * `peopleContract("kv", make)` registers one `Deno.test` per guarantee.
 */
import assert from "node:assert/strict";
import { contractTests, type MakePort } from "./_suite.ts";
import type { PeoplePort, Person } from "../../../src/store/ports/people.ts";

/** Makes a fresh, empty port and closes it. */
export type MakePeople = MakePort<PeoplePort>;

const person = (id: string, email = `${id}@example.org`): Person => ({
  id,
  email,
  name: `Person ${id}`,
  passwordHash: null,
  instanceAdmin: false,
  createdAt: "2030-01-01T00:00:00.000Z",
  updatedAt: "2030-01-01T00:00:00.000Z",
});

/** Registers the people contract's tests for implementation `name`. */
export function peopleContract(name: string, make: MakePeople): void {
  const test = contractTests("people", name, make);

  test("a person is found by id and by email (asked in any case)", async (p) => {
    assert.equal(await p.get("p1"), null);
    assert.equal(await p.byEmail("ada@example.org"), null);
    const ada = { ...person("p1", "ada@example.org"), passwordHash: "$argon2id$x" };
    assert.equal(await p.create(ada), "created");
    assert.deepEqual(await p.get("p1"), ada);
    assert.deepEqual(await p.byEmail("ada@example.org"), ada);
    assert.deepEqual(await p.byEmail("Ada@Example.ORG"), ada);
  });

  test("an email or an id in use is refused, and nothing of it is written", async (p) => {
    assert.equal(await p.create(person("p1", "ada@example.org")), "created");
    assert.equal(await p.create(person("p2", "ada@example.org")), "email_taken");
    assert.equal(await p.get("p2"), null);
    assert.equal(await p.create(person("p1", "bob@example.org")), "email_taken");
    assert.equal(await p.byEmail("bob@example.org"), null);
    assert.deepEqual(await p.list(), [person("p1", "ada@example.org")]);
  });

  test("every person, ordered by email", async (p) => {
    for (const [id, email] of [["p1", "c@x.org"], ["p2", "a@x.org"], ["p3", "b@x.org"]]) {
      await p.create(person(id, email));
    }
    assert.deepEqual((await p.list()).map((x) => x.email), ["a@x.org", "b@x.org", "c@x.org"]);
  });

  test("an update writes the change; a changed email moves the index", async (p) => {
    assert.equal(await p.update("p1", (x) => x), null, "no such person");
    await p.create(person("p1", "ada@example.org"));
    const renamed = await p.update("p1", (x) => ({ ...x, name: "Ada", instanceAdmin: true }));
    assert.deepEqual(renamed, {
      ...person("p1", "ada@example.org"),
      name: "Ada",
      instanceAdmin: true,
    });
    assert.deepEqual(await p.get("p1"), renamed);
    const moved = await p.update("p1", (x) => ({ ...x, email: "ada@new.org" }));
    assert.equal((moved as Person).email, "ada@new.org");
    assert.equal(await p.byEmail("ada@example.org"), null);
    assert.deepEqual(await p.byEmail("ada@new.org"), moved);
    assert.deepEqual(await p.list(), [moved]);
    assert.equal(
      await p.create(person("p2", "ada@example.org")),
      "created",
      "the old email is free",
    );
  });

  test("an update to an email in use is refused, and nothing of it is written", async (p) => {
    await p.create(person("p1", "ada@example.org"));
    await p.create(person("p2", "bob@example.org"));
    const taken = await p.update("p2", (x) => ({ ...x, email: "ada@example.org", name: "B" }));
    assert.equal(taken, "email_taken");
    assert.deepEqual(await p.get("p2"), person("p2", "bob@example.org"));
    assert.equal((await p.byEmail("ada@example.org"))?.id, "p1");
  });

  test(
    "two processes at once: one person per email; concurrent updates lose none",
    async (p, q) => {
      for (let round = 0; round < 5; round++) {
        const email = `same${round}@example.org`;
        const outcomes = await Promise.all([
          p.create(person(`a${round}`, email)),
          q.create(person(`b${round}`, email)),
        ]);
        assert.deepEqual([...outcomes].sort(), ["created", "email_taken"]);
        const winner = outcomes[0] === "created" ? `a${round}` : `b${round}`;
        assert.equal((await q.byEmail(email))?.id, winner);
        assert.equal(await p.get(outcomes[0] === "created" ? `b${round}` : `a${round}`), null);
      }
      await p.create({ ...person("c"), name: "" });
      await Promise.all(
        Array.from(
          { length: 8 },
          (_, i) => (i % 2 ? p : q).update("c", (x) => ({ ...x, name: `${x.name}${i}` })),
        ),
      );
      const name = (await p.get("c"))!.name;
      assert.deepEqual([...name].sort().join(""), "01234567", "every change applied once");
    },
  );
}
