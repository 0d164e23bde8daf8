/**
 * The console sessions port's contract: every implementation runs these tests.
 */
import assert from "node:assert/strict";
import type { ConsoleSession, SessionsPort } from "../../../src/store/ports/sessions.ts";

/** A port under test and how to dispose of it. */
export interface SessionsFixture {
  port: SessionsPort;
  /** The sessions port of a second handle on the same store (PostgreSQL: a second pool). */
  other: SessionsPort;
  close(): Promise<void>;
}

function session(personId: string, seenAt = 1000, createdAt = 1000): ConsoleSession {
  return {
    personId,
    csrf: "c",
    createdAt,
    seenAt,
    method: "password",
    secondFactor: false,
    address: "192.0.2.1",
    agent: "test",
  };
}

const HOUR = 3600_000;

/**
 * Registers the sessions contract for the implementation `make` builds.
 *
 * @example
 * ```ts
 * sessionsContract("kv", makeKvFixture);
 * ```
 */
export function sessionsContract(name: string, make: () => Promise<SessionsFixture>): void {
  const test = (title: string, fn: (port: SessionsPort, other: SessionsPort) => Promise<void>) =>
    Deno.test(`sessions port (${name}): ${title}`, async () => {
      const fixture = await make();
      try {
        await fn(fixture.port, fixture.other);
      } finally {
        await fixture.close();
      }
    });

  test("create, get and delete one session", async (port) => {
    assert.equal(await port.get("h1"), null);
    await port.create("h1", session("u1"), HOUR);
    await port.create("h2", session("u1"), HOUR);
    assert.deepEqual(await port.get("h1"), session("u1"));
    await port.delete("u1", "h1");
    await port.delete("u1", "h1");
    assert.equal(await port.get("h1"), null);
    assert.deepEqual(await port.get("h2"), session("u1"), "the other session stays");
  });

  test("touch moves seenAt forward only, and never brings a deleted session back", async (port) => {
    await port.create("h1", session("u1"), HOUR);
    assert.equal(await port.touch("h1", 5000, HOUR), true);
    assert.equal((await port.get("h1"))!.seenAt, 5000);
    assert.equal(await port.touch("h1", 4000, HOUR), false, "an older time is ignored");
    assert.equal((await port.get("h1"))!.seenAt, 5000);
    await port.delete("u1", "h1");
    assert.equal(await port.touch("h1", 9000, HOUR), false);
    assert.equal(await port.get("h1"), null);
  });

  test("list answers a person's live sessions, oldest sign-in first", async (port) => {
    await port.create("b", session("p1", 3000, 3000), HOUR);
    await port.create("a", session("p1", 2000, 2000), HOUR);
    await port.create("c", session("p2"), HOUR);
    assert.deepEqual(await port.list("p1"), [
      { idHash: "a", session: session("p1", 2000, 2000) },
      { idHash: "b", session: session("p1", 3000, 3000) },
    ]);
    await port.delete("p1", "a");
    assert.deepEqual((await port.list("p1")).map((s) => s.idHash), ["b"]);
    assert.deepEqual(await port.list("p3"), []);
  });

  test("deleteAll ends every session of one person and counts them", async (port) => {
    for (const id of ["a", "b", "c"]) await port.create(id, session("u1"), HOUR);
    await port.create("d", session("u2"), HOUR);
    assert.equal(await port.deleteAll("u1"), 3);
    for (const id of ["a", "b", "c"]) assert.equal(await port.get(id), null);
    assert.deepEqual(await port.get("d"), session("u2"));
    assert.equal(await port.deleteAll("u1"), 0);
  });

  test(
    "a session made through one handle is seen, touched and ended through another",
    async (port, other) => {
      await port.create("h1", session("u1"), HOUR);
      assert.deepEqual(await other.get("h1"), session("u1"));
      assert.equal(await other.touch("h1", 7000, HOUR), true);
      assert.equal((await port.get("h1"))!.seenAt, 7000);
      assert.equal(await other.deleteAll("u1"), 1);
      assert.equal(await port.get("h1"), null);
      assert.equal(await port.touch("h1", 9000, HOUR), false);
    },
  );
}
