/**
 * The contract of the tickets port (src/store/ports/tickets.ts), for any implementation:
 * `ticketsContract("kv", make)` registers one `Deno.test` per guarantee.
 */
import assert from "node:assert/strict";
import { contractTests, type MakePort } from "./_suite.ts";
import type { Ticket, TicketsPort } from "../../../src/store/ports/tickets.ts";

/** Makes a fresh, empty port and closes it. */
export type MakeTickets = MakePort<TicketsPort>;

const ticket = (ttlMs = 60_000): Ticket => ({
  kind: "invite",
  personId: null,
  data: { email: "ada@example.org", databaseId: "d1", role: "editor" },
  expiresAt: Date.now() + ttlMs,
});

/** Registers the tickets contract's tests for implementation `name`. */
export function ticketsContract(name: string, make: MakeTickets): void {
  const test = contractTests("tickets", name, make);

  test("a ticket is consumed once", async (p) => {
    const t = ticket();
    await p.save("h1", t);
    await p.save("h2", { ...t, kind: "set_password", personId: "p1", data: {} });
    assert.deepEqual(await p.consume("h1", "invite"), t);
    assert.equal(await p.consume("h1", "invite"), null);
    assert.equal(await p.consume("h9", "invite"), null);
    assert.equal((await p.consume("h2", "set_password"))?.personId, "p1");
  });

  test("a ticket of another kind is not consumed", async (p) => {
    const t = ticket();
    await p.save("h1", t);
    assert.equal(await p.consume("h1", "set_password"), null);
    assert.deepEqual(await p.consume("h1", "invite"), t, "still there for its own kind");
  });

  test("an expired ticket reads as absent", async (p) => {
    await p.save("old", ticket(1));
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(await p.consume("old", "invite"), null);
  });

  test("two processes at once: exactly one consumer gets the ticket", async (p, q) => {
    for (let round = 0; round < 10; round++) {
      const t = ticket();
      await p.save(`h${round}`, t);
      const got = await Promise.all([
        p.consume(`h${round}`, "invite"),
        q.consume(`h${round}`, "invite"),
        q.consume(`h${round}`, "invite"),
      ]);
      assert.equal(got.filter((x) => x !== null).length, 1);
      assert.deepEqual(got.find((x) => x !== null), t);
    }
  });
}
