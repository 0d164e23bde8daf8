/**
 * A database's members over real HTTP: owners only (others 403, non-members 404 as missing,
 * a token without the admin scope 403), the last owner kept (409 `last_owner`), invitations
 * single use and expiring (accepted at the console's invitation page), and a removal that ends
 * the removed person's sessions and tokens at once. Each on Deno KV and on PostgreSQL.
 */
import assert from "node:assert/strict";
import { sha256Hex } from "../../../src/auth/tokens.ts";
import { addPerson } from "../../_support/people.ts";
import { call, startInstance, type TestInstance } from "../../_support/server.ts";
import { newDatabase } from "../../console/_fixture.ts";
import { ConsoleClient, csrfOf, firstPerson, withPassword } from "../../console/_client.ts";
import { freshPg } from "../../store/contract/_pg.ts";

const PASSWORD = "correct horse battery staple";

/**
 * Registers `body` as two tests, on an instance with Deno KV and on one with PostgreSQL (each
 * closed afterwards).
 */
function onBoth(name: string, body: (inst: TestInstance) => Promise<void>): void {
  for (const backend of ["kv", "postgres"] as const) {
    Deno.test(`${name} (${backend})`, async () => {
      const pg = backend === "postgres" ? await freshPg() : null;
      const inst = await startInstance(
        pg
          ? {
            SEALPOST_STORE_BACKEND: "postgres",
            SEALPOST_POSTGRES_URL: `${pg.url}?search_path=${pg.schema}`,
            SEALPOST_STORE_POSTGRES_POOL_SIZE: "4",
          }
          : {},
      );
      try {
        await body(inst);
      } finally {
        await inst.close();
        await pg?.close();
      }
    });
  }
}

function members(inst: TestInstance, dbId: string, rest = ""): string {
  return `${inst.url}/vault/databases/${dbId}/members${rest}`;
}

/** Invites `email` as `role` with `token`; the link's secret. */
async function invite(
  inst: TestInstance,
  dbId: string,
  email: string,
  role: string,
  token = inst.credentials.ownerToken,
): Promise<string> {
  const res = await call(members(inst, dbId), { method: "POST", token, json: { email, role } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.match(res.body.invitationLink, /\/console\/invitations#[A-Za-z0-9_-]{43}$/);
  return res.body.invitationLink.split("#")[1];
}

/** Accepts an invitation as a new person at the console's page; the response. */
async function acceptAsNew(inst: TestInstance, secret: string, name = "Ada") {
  const browser = new ConsoleClient(inst.url);
  const csrf = csrfOf(await browser.page("/console/invitations"));
  const res = await browser.post(
    "/console/invitations",
    { secret, name, password: PASSWORD },
    csrf,
  );
  return { browser, res, text: await res.text() };
}

onBoth(
  "members API: owners list, invite, change roles and remove; others may not",
  async (inst) => {
    const dbId = await newDatabase(inst);
    const owner = inst.credentials.ownerToken;
    const editor = await addPerson(inst, { databaseId: dbId, role: "editor", name: "Ed" });
    const viewer = await addPerson(inst, { databaseId: dbId, role: "viewer" });
    const stranger = await addPerson(inst);
    const narrow = await addPerson(inst, {
      databaseId: dbId,
      role: "owner",
      scopes: ["records:read", "forms:write"],
    });

    const list = await call(members(inst, dbId), { token: owner });
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.items.map((m: { role: string }) => m.role),
      ["owner", "owner", "editor", "viewer"],
    );
    assert.equal(
      list.body.items.find((m: { name: string }) => m.name === "Ed").personId,
      editor.personId,
    );

    for (const who of [editor, viewer]) {
      for (
        const [method, rest, json] of [
          ["GET", "", undefined],
          ["POST", "", { email: "x@example.org", role: "viewer" }],
          ["PATCH", `/${viewer.personId}`, { role: "editor" }],
          ["DELETE", `/${viewer.personId}`, undefined],
        ] as const
      ) {
        const res = await call(members(inst, dbId, rest), { method, token: who.token, json });
        assert.equal(res.status, 403, `${method} ${rest}`);
        assert.equal(res.body.error.code, "forbidden");
      }
    }
    const hidden = await call(members(inst, dbId), { token: stranger.token });
    assert.equal(hidden.status, 404);
    assert.equal(hidden.body.error.code, "database_not_found");
    const missing = await call(members(inst, "nope"), { token: owner });
    assert.equal(missing.status, 404, "a stranger's answer is a missing database's");
    assert.equal(missing.body.error.code, hidden.body.error.code);
    const scoped = await call(members(inst, dbId), { token: narrow.token });
    assert.equal(scoped.status, 403);
    assert.equal(scoped.body.error.code, "insufficient_scope");

    const promoted = await call(members(inst, dbId, `/${viewer.personId}`), {
      method: "PATCH",
      token: owner,
      json: { role: "editor" },
    });
    assert.equal(promoted.status, 200);
    assert.equal(promoted.body.role, "editor");
    const badRole = await call(members(inst, dbId, `/${viewer.personId}`), {
      method: "PATCH",
      token: owner,
      json: { role: "god" },
    });
    assert.equal(badRole.status, 400);
    const noMember = await call(members(inst, dbId, `/${stranger.personId}`), {
      method: "PATCH",
      token: owner,
      json: { role: "viewer" },
    });
    assert.equal(noMember.status, 404);
    assert.equal(noMember.body.error.code, "member_not_found");
    const already = await call(members(inst, dbId), {
      method: "POST",
      token: owner,
      json: { email: `${editor.personId}@test.invalid`, role: "viewer" },
    });
    assert.equal(already.status, 409);
    assert.equal(already.body.error.code, "already_member");
  },
);

onBoth("members API: the last owner can be neither demoted nor removed", async (inst) => {
  const dbId = await newDatabase(inst);
  const owner = inst.credentials.ownerToken;
  const me = inst.credentials.userId;
  for (const [method, json] of [["PATCH", { role: "editor" }], ["DELETE", undefined]] as const) {
    const res = await call(members(inst, dbId, `/${me}`), { method, token: owner, json });
    assert.equal(res.status, 409, method);
    assert.equal(res.body.error.code, "last_owner");
    assert.match(res.body.error.message, /at least one owner/);
  }
  // With a second owner, the first may step down.
  const second = await addPerson(inst, { databaseId: dbId, role: "owner" });
  const down = await call(members(inst, dbId, `/${me}`), {
    method: "PATCH",
    token: owner,
    json: { role: "editor" },
  });
  assert.equal(down.status, 200);
  const last = await call(members(inst, dbId, `/${second.personId}`), {
    method: "DELETE",
    token: second.token,
  });
  assert.equal(last.status, 409);
});

onBoth(
  "invitations: a new person joins once; a used, expired or foreign link does not work",
  async (inst) => {
    const dbId = await newDatabase(inst);
    const secret = await invite(inst, dbId, "Ada@Example.org", "editor");
    // A weak password is refused before the link is used.
    const browser = new ConsoleClient(inst.url);
    const csrf = csrfOf(await browser.page("/console/invitations"));
    const weak = await browser.post(
      "/console/invitations",
      { secret, name: "Ada", password: "short" },
      csrf,
    );
    assert.equal(weak.status, 400);
    assert.match(await weak.text(), /at least 12 characters/);
    // Without the form's cookie token: refused.
    const forged = await new ConsoleClient(inst.url).post(
      "/console/invitations",
      { secret, name: "Ada", password: PASSWORD },
      "forged",
    );
    assert.equal(forged.status, 403);
    await forged.body?.cancel();

    const { browser: ada, res } = await acceptAsNew(inst, secret);
    assert.equal(res.status, 303);
    assert.match(res.headers.get("location")!, new RegExp(`^/console/databases/${dbId}\\?done=`));
    assert.match(await ada.page(`/console/databases/${dbId}`), /Your role here: <strong>editor/);
    const ports = inst.server.vault!.store;
    const person = (await ports.people.byEmail("ada@example.org"))!;
    assert.equal(person.name, "Ada");
    assert.match(person.passwordHash!, /^\$argon2id\$/);
    assert.equal((await ports.memberships.get(dbId, person.id))?.role, "editor");

    const reused = await acceptAsNew(inst, secret, "Mallory");
    assert.equal(reused.res.status, 404);
    assert.match(reused.text, /used already, it expired/);

    // An expired invitation (saved as if eight days ago).
    const old = "A".repeat(43);
    await ports.tickets.save(await sha256Hex(old), {
      kind: "invite",
      personId: null,
      data: { databaseId: dbId, email: "late@example.org", role: "viewer" },
      expiresAt: Date.now() - 86_400_000,
    });
    assert.equal((await acceptAsNew(inst, old)).res.status, 404);
    assert.equal((await acceptAsNew(inst, "not-a-secret")).res.status, 404);

    // An invitation to an email with an account: a new account is refused (sign in first) and
    // the link keeps working for that person, signed in; another signed-in person is refused.
    const existing = await addPerson(inst);
    const email = `${existing.personId}@test.invalid`;
    const forExisting = await invite(inst, dbId, email, "viewer");
    const refused = await acceptAsNew(inst, forExisting, "Someone");
    assert.equal(refused.res.status, 409);
    assert.match(refused.text, /sign in first/);
    const other = new ConsoleClient(inst.url);
    await other.signIn(await firstPerson(inst));
    const wrong = await other.post(
      "/console/invitations",
      { secret: forExisting },
      csrfOf(await other.page("/console/invitations")),
    );
    assert.equal(wrong.status, 403);
    assert.match(await wrong.text(), /This invitation is for/);
    const right = new ConsoleClient(inst.url);
    await right.signIn(await withPassword(inst.server.vault!.store.people, existing.personId));
    const accepted = await right.post(
      "/console/invitations",
      { secret: forExisting },
      csrfOf(await right.page("/console/invitations")),
    );
    assert.equal(accepted.status, 303);
    assert.equal((await ports.memberships.get(dbId, existing.personId))?.role, "viewer");
  },
);

onBoth("removal: the removed person's sessions and tokens end at once", async (inst) => {
  const dbId = await newDatabase(inst);
  const otherDb = await newDatabase(inst);
  const owner = inst.credentials.ownerToken;
  const form = await call(`${inst.url}/vault/forms`, {
    method: "POST",
    token: owner,
    json: { databaseId: dbId, title: "T", fields: [{ id: "a", kind: "text", label: "A" }] },
  });
  assert.equal(form.status, 201, JSON.stringify(form.body));
  const formUrl = `${inst.url}/vault/forms/${form.body.formId}`;

  // Only a member here: removed, every token of theirs is revoked and their session ends.
  const solo = await addPerson(inst, { databaseId: dbId, role: "editor" });
  const soloBrowser = new ConsoleClient(inst.url);
  await soloBrowser.signIn(await withPassword(inst.server.vault!.store.people, solo.personId));
  assert.equal((await call(formUrl, { token: solo.token })).status, 200);
  const removed = await call(members(inst, dbId, `/${solo.personId}`), {
    method: "DELETE",
    token: owner,
  });
  assert.equal(removed.status, 200);
  assert.deepEqual(removed.body, { sessionsEnded: 1, tokensRevoked: 1 });
  assert.equal((await call(formUrl, { token: solo.token })).status, 401);
  const page = await soloBrowser.request(`/console/forms/${form.body.formId}`);
  assert.equal(page.status, 303, "the session is gone: back to sign-in");
  await page.body?.cancel();

  // A member of another database too: the session ends, the token stays for the other
  // database and finds nothing of this one.
  const both = await addPerson(inst, { databaseId: dbId, role: "viewer" });
  await inst.server.vault!.store.memberships.put({
    databaseId: otherDb,
    personId: both.personId,
    role: "viewer",
    since: new Date().toISOString(),
  });
  const bothBrowser = new ConsoleClient(inst.url);
  await bothBrowser.signIn(await withPassword(inst.server.vault!.store.people, both.personId));
  const out = await call(members(inst, dbId, `/${both.personId}`), {
    method: "DELETE",
    token: owner,
  });
  assert.deepEqual(out.body, { sessionsEnded: 1, tokensRevoked: 0 });
  const gone = await call(formUrl, { token: both.token });
  assert.equal(gone.status, 404);
  assert.equal(gone.body.error.code, "form_not_found");
  const dbs = await call(`${inst.url}/vault/databases`, { token: both.token });
  assert.deepEqual(dbs.body.items.map((d: { id: string }) => d.id), [otherDb]);
  const again = await bothBrowser.request("/console");
  assert.equal(again.status, 200);
  assert.match(await again.text(), /Sign in/);
  const twice = await call(members(inst, dbId, `/${both.personId}`), {
    method: "DELETE",
    token: owner,
  });
  assert.equal(twice.status, 404);
});
