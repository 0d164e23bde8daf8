/**
 * The people API over real HTTP: an instance admin adds a person (a one-time set-password link,
 * never a password), lists people; anyone else is refused; emails are unique.
 */
import assert from "node:assert/strict";
import { addPerson } from "../../_support/people.ts";
import { call, startInstance } from "../../_support/server.ts";

Deno.test("people API: an instance admin adds a person and gets a one-time set-password link", async () => {
  const inst = await startInstance();
  try {
    const admin = inst.credentials.ownerToken;
    const added = await call(`${inst.url}/vault/people`, {
      method: "POST",
      token: admin,
      json: { email: " Ada@Example.ORG ", name: "Ada" },
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.equal(added.body.person.email, "ada@example.org");
    assert.equal(added.body.person.name, "Ada");
    assert.equal(added.body.person.instanceAdmin, false);
    assert.equal(added.body.person.passwordSet, false);
    assert.match(added.body.setPasswordLink, /\/console\/set-password#[A-Za-z0-9_-]{43}$/);
    assert.ok(added.body.setPasswordLink.startsWith(inst.server.baseUrl));
    const days = (Date.parse(added.body.expiresAt) - Date.now()) / 86_400_000;
    assert.ok(days > 6.9 && days <= 7, `expires in ${days} days`);
    assert.ok(!JSON.stringify(added.body).includes("passwordHash"));
    // The link's ticket is a set_password ticket for that person, once.
    const secret = added.body.setPasswordLink.split("#")[1];
    const { consumeTicket } = await import("../../../src/people/tickets.ts");
    const tickets = inst.server.vault!.store.tickets;
    const ticket = await consumeTicket(tickets, secret, "set_password");
    assert.equal(ticket?.personId, added.body.person.id);
    assert.equal(await consumeTicket(tickets, secret, "set_password"), null);

    const again = await call(`${inst.url}/vault/people`, {
      method: "POST",
      token: admin,
      json: { email: "ADA@example.org" },
    });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, "email_taken");
    const bad = await call(`${inst.url}/vault/people`, {
      method: "POST",
      token: admin,
      json: { email: "not an address" },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, "email");

    const list = await call(`${inst.url}/vault/people`, { token: admin });
    assert.equal(list.status, 200);
    assert.ok(list.body.items.some((p: { email: string }) => p.email === "ada@example.org"));
    const first = list.body.items.find((p: { instanceAdmin: boolean }) => p.instanceAdmin);
    assert.equal(first.id, inst.credentials.userId);

    const boss = await call(`${inst.url}/vault/people`, {
      method: "POST",
      token: admin,
      json: { email: "boss@example.org", instanceAdmin: true },
    });
    assert.equal(boss.body.person.instanceAdmin, true);
  } finally {
    await inst.close();
  }
});

Deno.test("people API: only an instance admin with the admin scope; no token is a 401", async () => {
  const inst = await startInstance();
  try {
    const plain = await addPerson(inst);
    const narrow = await addPerson(inst, { instanceAdmin: true, scopes: ["records:read"] });
    for (
      const [token, code] of [[plain.token, "forbidden"], [narrow.token, "insufficient_scope"]]
    ) {
      for (const method of ["GET", "POST"]) {
        const res = await call(`${inst.url}/vault/people`, {
          method,
          token,
          json: method === "POST" ? { email: "x@example.org" } : undefined,
        });
        assert.equal(res.status, 403, `${method} ${code}`);
        assert.equal(res.body.error.code, code);
      }
    }
    assert.equal((await call(`${inst.url}/vault/people`)).status, 401);
    const admin = await call(`${inst.url}/vault/people`, { token: inst.credentials.adminToken });
    assert.equal(admin.status, 403, "a relay admin token is no person");
  } finally {
    await inst.close();
  }
});
