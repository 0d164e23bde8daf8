/**
 * Person tokens: minted as `spt_…`, authenticated to their person with their scopes; an
 * expired token, a revoked one, a wrong secret or a person gone stands for nobody; an owner
 * token (`spo_…`) counts once adopted.
 */
import { adaPerson } from "../_support/people.ts";
import assert from "node:assert/strict";
import { authenticatePerson, mintPersonToken } from "../../src/people/person_tokens.ts";
import type { Person } from "../../src/store/ports/people.ts";
import type { PersonToken, PersonTokensPort } from "../../src/store/ports/person_tokens.ts";

function source() {
  const tokens = new Map<string, PersonToken>();
  const people = new Map<string, Person>();
  const touched: string[] = [];
  const personTokens: PersonTokensPort = {
    save: (t) => Promise.resolve(void tokens.set(t.id, t)),
    get: (id) => Promise.resolve(tokens.get(id) ?? null),
    list: () => Promise.resolve([...tokens.values()]),
    revoke: (id) => {
      const t = tokens.get(id) ?? null;
      tokens.delete(id);
      return Promise.resolve(t);
    },
    touch: (id) => Promise.resolve(void touched.push(id)),
  };
  const person = adaPerson("p1");
  people.set(person.id, person);
  const ports = {
    personTokens,
    people: { get: (id: string) => Promise.resolve(people.get(id) ?? null) },
  };
  return { ports, people, touched, personTokens };
}

Deno.test("a person token stands for its person with its scopes, and records its use", async () => {
  const { ports, touched, personTokens } = source();
  const { token, row } = await mintPersonToken("p1", "cli", ["records:read"], null);
  assert.match(token, /^spt_[0-9a-f]{24}_[A-Za-z0-9_-]{43}$/);
  await personTokens.save(row);
  const person = await authenticatePerson(ports, token);
  assert.deepEqual(person, {
    kind: "person",
    personId: "p1",
    instanceAdmin: false,
    scopes: new Set(["records:read"]),
    tokenId: row.id,
    sessionId: null,
  });
  assert.deepEqual(touched, [row.id]);
});

Deno.test("expired, revoked, wrong secret, person gone, malformed: nobody", async () => {
  const { ports, people, personTokens } = source();
  const expired = await mintPersonToken("p1", "old", ["records:read"], "2020-01-01T00:00:00Z");
  await personTokens.save(expired.row);
  assert.equal(await authenticatePerson(ports, expired.token), null);
  const live = await mintPersonToken("p1", "live", ["records:read"], "2999-01-01T00:00:00Z");
  await personTokens.save(live.row);
  assert.ok(await authenticatePerson(ports, live.token));
  const wrong = live.token.slice(0, -1) + (live.token.endsWith("A") ? "B" : "A");
  assert.equal(await authenticatePerson(ports, wrong), null);
  assert.equal(await authenticatePerson(ports, "spa_" + live.token.slice(4)), null);
  assert.equal(await authenticatePerson(ports, "nonsense"), null);
  const ada = people.get("p1")!;
  people.delete("p1");
  assert.equal(await authenticatePerson(ports, live.token), null, "person gone");
  people.set("p1", ada);
  assert.ok(await authenticatePerson(ports, live.token));
  await personTokens.revoke(live.row.id);
  assert.equal(await authenticatePerson(ports, live.token), null);
});

Deno.test("an owner token counts once adopted, and only then", async () => {
  const { ports, personTokens } = source();
  const { token, row } = await mintPersonToken("p1", "owner token", ["admin"], null);
  const owner = "spo_" + token.slice(4);
  let adopted = false;
  const adopting = {
    ...ports,
    adopt: async () => {
      adopted = true;
      await personTokens.save(row);
      return true;
    },
  };
  assert.equal(await authenticatePerson(ports, owner), null, "no adoption: nobody");
  assert.equal((await authenticatePerson(adopting, owner))?.personId, "p1");
  assert.ok(adopted);
});
