/**
 * The tokens service (src/people/tokens.ts) on Deno KV ports: what it tells the audit log
 * (token_created, token_revoked; never a secret or its hash), the relay side of a
 * `relay:queue` token, and who sees what.
 */
import assert from "node:assert/strict";
import type { PersonPrincipal } from "../../src/auth/index.ts";
import type { AuditEvent } from "../../src/audit/sink.ts";
import { Access } from "../../src/people/access.ts";
import { ACCOUNT_FACT } from "../../src/people/bootstrap.ts";
import { PersonTokens } from "../../src/people/tokens.ts";
import { KvIdentity } from "../../src/store/kv/identity.ts";
import { KvMemberships } from "../../src/store/kv/memberships.ts";
import { KvPeople } from "../../src/store/kv/people.ts";
import { KvPersonTokens } from "../../src/store/kv/person_tokens.ts";
import { KvVaultDatabases } from "../../src/store/kv/vault_databases.ts";
import { SCOPES } from "../../src/store/ports/person_tokens.ts";
import { tempKv } from "../store/_kv.ts";

const person = (personId: string, instanceAdmin: boolean): PersonPrincipal => ({
  kind: "person",
  personId,
  instanceAdmin,
  scopes: new Set(SCOPES),
  tokenId: null,
  sessionId: "s",
});

async function setup() {
  const store = await tempKv();
  const events: AuditEvent[] = [];
  const people = new KvPeople(store.kv);
  const facts = new KvVaultDatabases(store.kv);
  const relay = new KvIdentity(store.kv);
  const personTokens = new KvPersonTokens(store.kv);
  await facts.setFact(ACCOUNT_FACT, "acct");
  const now = new Date().toISOString();
  for (const [id, instanceAdmin] of [["admin", true], ["ann", false]] as const) {
    await people.create({
      id,
      email: `${id}@test.invalid`,
      name: id,
      passwordHash: null,
      instanceAdmin,
      createdAt: now,
      updatedAt: now,
    });
  }
  const tokens = new PersonTokens({
    tokens: personTokens,
    people,
    facts,
    relay,
    access: new Access(new KvMemberships(store.kv)),
    audit: { record: (event) => events.push(event) },
  });
  return { store, events, relay, personTokens, tokens };
}

Deno.test("tokens: created and revoked tokens are audited, never with a secret", async () => {
  const { store, events, tokens } = await setup();
  try {
    const ann = person("ann", false);
    const { token, view } = await tokens.create(ann, { name: "cli", scopes: ["records:read"] });
    await tokens.revoke(ann, view.id);
    const admin = person("admin", true);
    const other = await tokens.create(ann, { name: "two", scopes: ["forms:write"] });
    await tokens.revoke(admin, other.view.id, "ann");
    assert.deepEqual(events, [
      {
        action: "token_created",
        personId: "ann",
        target: { kind: "token", id: view.id },
        detail: { scopes: "records:read", expires: false },
      },
      { action: "token_revoked", personId: "ann", target: { kind: "token", id: view.id } },
      {
        action: "token_created",
        personId: "ann",
        target: { kind: "token", id: other.view.id },
        detail: { scopes: "forms:write", expires: false },
      },
      {
        action: "token_revoked",
        personId: "admin",
        target: { kind: "token", id: other.view.id },
        detail: { person: "ann" },
      },
    ]);
    const text = JSON.stringify(events);
    assert.ok(!text.includes(token.split("_").slice(2).join("_")), "no secret");
    assert.ok(!text.includes(other.token.split("_").slice(2).join("_")), "no secret");
  } finally {
    await store.close();
  }
});

Deno.test("tokens: a relay:queue token is an owner token of the account at the relay, until revoked", async () => {
  const { store, relay, personTokens, tokens } = await setup();
  try {
    const admin = { ...person("admin", true), tokenId: null };
    const { view } = await tokens.create(admin, { name: "worker", scopes: ["relay:queue"] });
    const stored = (await personTokens.get(view.id))!;
    assert.deepEqual(await relay.getToken(view.id), {
      id: view.id,
      kind: "owner",
      userId: "acct",
      secretHash: stored.secretHash,
      createdAt: stored.createdAt,
    });
    const plain = await tokens.create(admin, { name: "plain", scopes: ["records:read"] });
    assert.equal(await relay.getToken(plain.view.id), null, "no relay row without relay:queue");
    await tokens.revoke(admin, view.id);
    assert.equal(await relay.getToken(view.id), null);
    assert.equal(await personTokens.get(view.id), null);
  } finally {
    await store.close();
  }
});

Deno.test("tokens: a person gets and lists only their own", async () => {
  const { store, tokens } = await setup();
  try {
    const ann = person("ann", false);
    const admin = person("admin", true);
    const mine = await tokens.create(admin, { name: "a", scopes: ["records:read"] });
    await assert.rejects(tokens.get(ann, mine.view.id), { code: "token_not_found" });
    await assert.rejects(tokens.revoke(ann, mine.view.id), { code: "token_not_found" });
    await assert.rejects(tokens.list(ann, "admin"), { code: "forbidden" });
    assert.deepEqual(await tokens.list(ann), []);
    assert.equal((await tokens.get(admin, mine.view.id)).name, "a");
    assert.deepEqual((await tokens.list(admin, "admin")).map((t) => t.id), [mine.view.id]);
  } finally {
    await store.close();
  }
});
