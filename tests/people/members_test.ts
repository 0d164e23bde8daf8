/**
 * The people services' audit sites (src/people/people.ts, invitations.ts, members.ts): adding a
 * person, inviting, joining, changing a role and removing each report who did what on which
 * database, and never an email, a link's secret or a password.
 */
import assert from "node:assert/strict";
import { peopleServices } from "../../src/people/index.ts";
import { stopPasswordHasher } from "../../src/people/password.ts";
import { auditedVault } from "./_audited_vault.ts";

Deno.test("people and members report person_created, member_invited, joined, role changed, removed", async () => {
  const { vault, tokens, events: stored, first, close } = await auditedVault();
  try {
    const user = { id: first.personId };
    const db = await vault.createDatabase(first, "main");
    const mailed: string[] = [];
    const { people, members, invitations } = peopleServices(vault, tokens, {
      send: (message) => Promise.resolve(void mailed.push(message.text)),
    });
    const base = "https://vault.example";
    const added = await people.add(first, {
      email: "bo@example.org",
      name: "Bo",
      instanceAdmin: false,
    }, base);
    const invited = await invitations.invite(first, db.id, "ada@example.org", "editor", base);
    assert.deepEqual(mailed, [mailed[0]]);
    assert.ok(mailed[0].includes(invited.link), "the mailer gets the link");
    const secret = invited.link.split("#")[1];
    const password = "analytical engine notes";
    const joined = await invitations.accept(secret, { name: "Ada", password });
    await members.setRole(first, db.id, joined.person.id, "viewer");
    await members.remove(first, db.id, joined.person.id);
    const events = await stored();
    assert.deepEqual(events.map((e) => e.action), [
      "database_created",
      "person_created",
      "member_invited",
      "person_created",
      "member_joined",
      "member_role_changed",
      "member_removed",
    ]);
    const [, created, invite, self, join, role, removed] = events;
    assert.deepEqual(created, {
      action: "person_created",
      personId: user.id,
      target: { kind: "person", id: added.person.id },
      detail: { instanceAdmin: false },
    });
    assert.deepEqual(invite, {
      action: "member_invited",
      personId: user.id,
      databaseId: db.id,
      detail: { role: "editor" },
    });
    assert.equal(self.personId, joined.person.id, "a new person made themselves");
    assert.deepEqual(join.detail, { role: "editor" });
    assert.deepEqual(role.detail, { from: "editor", to: "viewer" });
    assert.deepEqual(removed.detail, { sessionsEnded: 0, tokensRevoked: 0 });
    for (const event of [join, role, removed]) {
      assert.equal(event.databaseId, db.id);
      assert.deepEqual(event.target, { kind: "person", id: joined.person.id });
    }
    const text = JSON.stringify(events);
    for (const secretish of ["ada@example.org", "bo@example.org", secret, password, "argon2"]) {
      assert.ok(!text.includes(secretish), `no ${secretish} in the audit events`);
    }
  } finally {
    stopPasswordHasher();
    await close();
  }
});
