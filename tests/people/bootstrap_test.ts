/**
 * The people bootstrap (run by `serve`): init's user is the first person, an instance admin
 * and owner of every database, under the vault's account; its owner token from
 * credentials.json is its token with every scope; running it again changes nothing.
 */
import assert from "node:assert/strict";
import { ACCOUNT_FACT, bootstrapPeople } from "../../src/people/bootstrap.ts";
import { SCOPES } from "../../src/store/ports/person_tokens.ts";
import { call, startInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";

Deno.test("bootstrap: init's user is the first person, with its owner token; idempotent", async () => {
  const inst = await startInstance();
  try {
    const ports = inst.server.vault!.store;
    const { userId, ownerToken } = inst.credentials;
    const person = (await ports.people.get(userId))!;
    assert.equal(person.email, "owner@127.0.0.1.invalid");
    assert.equal(person.instanceAdmin, true);
    assert.equal(await ports.vaultDatabases.fact(ACCOUNT_FACT), userId);
    const tokenId = ownerToken.split("_")[1];
    const token = (await ports.personTokens.get(tokenId))!;
    assert.equal(token.personId, userId);
    assert.deepEqual(token.scopes, [...SCOPES]);
    // A database made since: its creator owns it, under the vault's account.
    const { db } = await vaultForm(inst, "Contact", [{ id: "name", kind: "text", label: "N" }]);
    assert.equal(db.userId, userId);
    assert.equal((await ports.memberships.get(db.id, userId))?.role, "owner");
    // Again: nothing changes, the token still works.
    const again = await bootstrapPeople({
      vault: ports,
      identity: inst.server.store.ports.relay.identity,
      first: inst.credentials,
      host: "127.0.0.1",
    });
    assert.equal(again.personId, userId);
    assert.deepEqual(await ports.people.list(), [person]);
    assert.equal((await call(`${inst.url}/vault/forms`, { token: ownerToken })).status, 200);
  } finally {
    await inst.close();
  }
});
