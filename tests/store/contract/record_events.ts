/**
 * The contract of the record events outbox as its consumer sees it
 * (`src/store/ports/record_events.ts`). Through the port only (events are put in the outbox
 * the vault's way, by the fixture); `tests/store/kv_webhooks_contract_test.ts` runs it on
 * Deno KV.
 */
import assert from "node:assert/strict";
import type { StoredRecordEvent } from "../../../src/store/ports/record_events.ts";
import { eventually, fixtureTests, recordEvent, type WebhooksFixture } from "./webhooks.ts";

/**
 * Registers the contract's tests; `make` gives each a fresh store.
 *
 * @example
 * ```ts
 * recordEventsContract("kv", async () => ({ port, emit, close }));
 * ```
 */
export function recordEventsContract(name: string, make: () => Promise<WebhooksFixture>): void {
  const test = fixtureTests(`${name}: record events`, make);

  test("a scan reads events whole, in id order, skipping, up to a limit", async ({ port, emit }) => {
    const outbox = port.recordEvents;
    assert.deepEqual(await outbox.scan({ skip: () => false, limit: 10 }), {
      events: [],
      more: false,
    });
    const large = recordEvent("e2", { note: "é".repeat(100_000) });
    for (const event of [recordEvent("e3"), large, recordEvent("e1"), recordEvent("e4")]) {
      await emit(event);
    }
    const all = await outbox.scan({ skip: () => false, limit: 10 });
    assert.deepEqual(all.events.map((s) => s.event.eventId), ["e1", "e2", "e3", "e4"]);
    assert.deepEqual(all.events[1].event, large);
    assert.equal(all.more, false);
    const some = await outbox.scan({ skip: (id) => id === "e1", limit: 2 });
    assert.deepEqual(some.events.map((s) => s.event.eventId), ["e2", "e3"]);
    assert.equal(some.more, true);
    const rest = await outbox.scan({ skip: (id) => id < "e4", limit: 2 });
    assert.deepEqual(rest.events.map((s) => s.event.eventId), ["e4"]);
    assert.equal(rest.more, false);
  });

  test("announced events reach the listeners until they unsubscribe", async ({ port, emit }) => {
    const heard: string[] = [];
    const stop = port.recordEvents.onAnnounced((events) =>
      heard.push(...events.map((s) => s.event.eventId))
    );
    await emit(recordEvent("e1"));
    await emit(recordEvent("e2"));
    // Announcements may come after the commit (another connection's): wait for them.
    await eventually(() => heard.length === 2);
    stop();
    await emit(recordEvent("e3"));
    // A listener still subscribed hears what comes after e3, so e3 has been announced.
    const later: string[] = [];
    const stopLater = port.recordEvents.onAnnounced((events) =>
      later.push(...events.map((s) => s.event.eventId))
    );
    await emit(recordEvent("e4"));
    await eventually(() => later.includes("e4"));
    stopLater();
    assert.deepEqual(heard, ["e1", "e2"]);
  });

  test("removal: on its own or with another write; twice is harmless", async ({ port, emit }) => {
    const outbox = port.recordEvents;
    const stored: StoredRecordEvent[] = [];
    for (const id of ["e1", "e2", "e3"]) {
      stored.push(await emit(recordEvent(id, { big: "x".repeat(id === "e2" ? 130_000 : 10) })));
    }
    await outbox.remove(stored[1]);
    await outbox.remove(stored[1]);
    const left = await outbox.scan({ skip: () => false, limit: 10 });
    assert.deepEqual(left.events.map((s) => s.event.eventId), ["e1", "e3"]);
    // Concurrent removals, each resolved once durable.
    await Promise.all([outbox.remove(stored[0]), outbox.remove(stored[2])]);
    assert.deepEqual((await outbox.scan({ skip: () => false, limit: 10 })).events, []);
  });
}
