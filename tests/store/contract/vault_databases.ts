/**
 * The vault databases port's contract: every implementation runs these tests.
 */
import assert from "node:assert/strict";
import type {
  VaultDatabase,
  VaultDatabasesPort,
} from "../../../src/store/ports/vault_databases.ts";

/** A port under test and how to dispose of it. */
export interface VaultDatabasesFixture {
  port: VaultDatabasesPort;
  close(): Promise<void>;
}

function db(id: string, userId = "u1"): VaultDatabase {
  return {
    id,
    userId,
    relayUserId: "r1",
    name: `db ${id}`,
    publicKey: "AAAA",
    fingerprint: id.padEnd(64, "0"),
    createdAt: "2025-01-01T00:00:00.000Z",
  };
}

/**
 * Registers the vault databases contract for the implementation `make` builds.
 *
 * @example
 * ```ts
 * vaultDatabasesContract("kv", makeKvFixture);
 * ```
 */
export function vaultDatabasesContract(
  name: string,
  make: () => Promise<VaultDatabasesFixture>,
): void {
  const test = (title: string, fn: (port: VaultDatabasesPort) => Promise<void>) =>
    Deno.test(`vault databases port (${name}): ${title}`, async () => {
      const fixture = await make();
      try {
        await fn(fixture.port);
      } finally {
        await fixture.close();
      }
    });

  test("put, get and list (ordered by id); put replaces", async (port) => {
    assert.equal(await port.get("b"), null);
    await port.put(db("b"));
    await port.put(db("a", "u2"));
    assert.deepEqual(await port.get("b"), db("b"));
    assert.deepEqual((await port.list()).map((row) => row.id), ["a", "b"]);
    await port.put({ ...db("b"), name: "renamed" });
    assert.equal((await port.get("b"))!.name, "renamed");
    assert.equal((await port.list()).length, 2);
  });

  test("facts are saved and replaced by name", async (port) => {
    assert.equal(await port.fact("demo"), null);
    await port.setFact("demo", { formId: "f1", n: 1 });
    await port.setFact("other", "x");
    assert.deepEqual(await port.fact("demo"), { formId: "f1", n: 1 });
    await port.setFact("demo", { formId: "f2" });
    assert.deepEqual(await port.fact("demo"), { formId: "f2" });
    assert.equal(await port.fact("other"), "x");
  });
}
