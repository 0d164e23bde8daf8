/**
 * The contract of the identity port (src/store/ports/identity.ts), for any implementation:
 * `identityContract("kv", make)` registers one `Deno.test` per guarantee.
 */
import assert from "node:assert/strict";
import { contractTests, type MakePort } from "./_suite.ts";
import type {
  ApiToken,
  IdentityPort,
  KeyChallenge,
  RelayDatabase,
  User,
} from "../../../src/store/ports/identity.ts";

/** Makes a fresh, empty port and closes it. */
export type MakeIdentity = MakePort<IdentityPort>;

const user = (id: string): User => ({
  id,
  name: `user ${id}`,
  createdAt: "2030-01-01T00:00:00.000Z",
});

const token = (id: string, userId: string | null, kind: ApiToken["kind"] = "owner"): ApiToken => ({
  id,
  kind,
  userId,
  secretHash: "ab".repeat(32),
  createdAt: "2030-01-01T00:00:00.000Z",
});

const challenge = (id: string, fingerprint: string, ttlMs = 60_000): KeyChallenge => ({
  id,
  userId: "u1",
  name: "main",
  publicKey: "A".repeat(43) + "=",
  fingerprint,
  answerHash: "cd".repeat(32),
  expiresAt: Date.now() + ttlMs,
});

const database = (id: string, fingerprint: string, userId = "u1"): RelayDatabase => ({
  id,
  userId,
  name: "main",
  publicKey: "A".repeat(43) + "=",
  fingerprint,
  createdAt: "2030-01-01T00:00:00.000Z",
});

/** Registers the identity contract's tests for implementation `name`. */
export function identityContract(name: string, make: MakeIdentity): void {
  const test = contractTests("identity", name, make);

  test("a user and its first token are stored together; an id in use is refused", async (p) => {
    assert.equal(await p.getUser("u1"), null);
    assert.equal(await p.createUser(user("u1"), token("t1", "u1")), true);
    assert.deepEqual(await p.getUser("u1"), user("u1"));
    assert.deepEqual(await p.getToken("t1"), token("t1", "u1"));
    const again = { ...user("u1"), name: "other" };
    assert.equal(await p.createUser(again, token("t2", "u1")), false);
    assert.deepEqual(await p.getUser("u1"), user("u1"), "the first user is kept");
    assert.equal(await p.getToken("t2"), null, "nothing of the refused write is stored");
  });

  test("tokens are stored by id, admin tokens without a user", async (p) => {
    assert.equal(await p.getToken("ta"), null);
    await p.saveToken(token("ta", null, "admin"));
    assert.deepEqual(await p.getToken("ta"), token("ta", null, "admin"));
  });

  test("a deleted token is gone at once; deleting it again is no error", async (p) => {
    await p.createUser(user("u1"), token("t1", "u1"));
    await p.saveToken(token("t2", "u1"));
    await p.deleteToken("t2");
    assert.equal(await p.getToken("t2"), null);
    assert.deepEqual(await p.getToken("t1"), token("t1", "u1"), "other tokens are kept");
    await p.deleteToken("t2");
    await p.deleteToken("never");
    assert.deepEqual(await p.getUser("u1"), user("u1"), "its user is kept");
  });

  test("a completed registration stores the database and routes its key", async (p) => {
    await p.createUser(user("u1"), token("t1", "u1"));
    const c = challenge("c1", "fp1");
    await p.saveChallenge(c);
    assert.deepEqual(await p.getChallenge("c1"), c);
    assert.equal(await p.completeRegistration(c, database("d1", "fp1")), "registered");
    assert.deepEqual(await p.recipientOwner("fp1"), { userId: "u1", dbId: "d1" });
    assert.deepEqual(await p.listDatabases("u1"), [database("d1", "fp1")]);
    assert.equal(await p.getChallenge("c1"), null, "the challenge is consumed");
    assert.equal(
      await p.completeRegistration(c, database("d2", "fp1")),
      "key_registered",
      "a key registered already wins over a consumed challenge",
    );
    assert.deepEqual(await p.listDatabases("u1"), [database("d1", "fp1")]);
  });

  test("a consumed or changed challenge completes nothing", async (p) => {
    const c = challenge("c1", "fp1");
    assert.equal(await p.completeRegistration(c, database("d1", "fp1")), "challenge_gone");
    await p.saveChallenge({ ...c, name: "renamed" });
    assert.equal(await p.completeRegistration(c, database("d1", "fp1")), "challenge_gone");
    assert.equal(await p.recipientOwner("fp1"), null);
    assert.deepEqual(await p.listDatabases("u1"), []);
  });

  test("two registrations of one key at once: exactly one wins", async (p) => {
    const a = challenge("ca", "fp1");
    const b = { ...challenge("cb", "fp1"), userId: "u2" };
    await p.saveChallenge(a);
    await p.saveChallenge(b);
    const outcomes = await Promise.all([
      p.completeRegistration(a, database("da", "fp1", "u1")),
      p.completeRegistration(b, database("db", "fp1", "u2")),
    ]);
    assert.deepEqual([...outcomes].sort(), ["key_registered", "registered"]);
    const route = await p.recipientOwner("fp1");
    const winner = outcomes[0] === "registered" ? "u1" : "u2";
    assert.equal(route?.userId, winner);
    const loser = winner === "u1" ? "u2" : "u1";
    assert.deepEqual(await p.listDatabases(loser), []);
  });

  test("an expired challenge is not readable", async (p) => {
    await p.saveChallenge(challenge("old", "fp1", 1));
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(await p.getChallenge("old"), null);
  });

  test("databases are listed per user in id order; recipients in fingerprint order", async (p) => {
    for (
      const [id, fp, userId] of [["d2", "fpb", "u1"], ["d1", "fpc", "u1"], ["d3", "fpa", "u2"]]
    ) {
      const c = { ...challenge(`c${id}`, fp), userId };
      await p.saveChallenge(c);
      assert.equal(await p.completeRegistration(c, database(id, fp, userId)), "registered");
    }
    assert.deepEqual((await p.listDatabases("u1")).map((d) => d.id), ["d1", "d2"]);
    assert.deepEqual((await p.listDatabases("u2")).map((d) => d.id), ["d3"]);
    assert.deepEqual(await p.listRecipients(), ["fpa", "fpb", "fpc"]);
    assert.equal(await p.recipientOwner("fpz"), null);
  });

  test("two processes at once: one user per id, one registration per key", async (p, q) => {
    const created = await Promise.all([
      p.createUser(user("u1"), token("t1", "u1")),
      q.createUser({ ...user("u1"), name: "other" }, token("t2", "u1")),
    ]);
    assert.deepEqual([...created].sort(), [false, true]);
    assert.equal(await q.getToken(created[0] ? "t2" : "t1"), null, "the loser wrote nothing");
    for (let round = 0; round < 5; round++) {
      const fp = `fp${round}`;
      const a = challenge(`ca${round}`, fp);
      const b = { ...challenge(`cb${round}`, fp), userId: "u2" };
      await p.saveChallenge(a);
      await q.saveChallenge(b);
      const outcomes = await Promise.all([
        p.completeRegistration(a, database(`da${round}`, fp, "u1")),
        q.completeRegistration(b, database(`db${round}`, fp, "u2")),
        // The same challenge completed twice: it is consumed once.
        q.completeRegistration(a, database(`dc${round}`, fp, "u1")),
      ]);
      assert.equal(outcomes.filter((o) => o === "registered").length, 1, outcomes.join());
      const route = await q.recipientOwner(fp);
      const dbs = [...await p.listDatabases("u1"), ...await p.listDatabases("u2")];
      assert.deepEqual(dbs.filter((d) => d.fingerprint === fp).map((d) => d.id), [route?.dbId]);
    }
    assert.equal((await p.listRecipients()).length, 5);
  });
}
