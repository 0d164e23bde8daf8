/**
 * Two vault workers on one relay queue over HTTP (role `vault`): each pulls with `lease`, so
 * they split the queue, and idles in a long poll (`wait`), so a new envelope wakes them at
 * once. The two workers share one vault store here, as they share PostgreSQL in production.
 */
import { ownerGate } from "../_support/people.ts";
import assert from "node:assert/strict";
import { buildEnvelope, buildPayload, seal } from "../../src/sdk/mod.ts";
import { openStore } from "../../src/store/kv/file.ts";
import { vaultKvPorts } from "../../src/store/kv/vault_ports.ts";
import { HttpRelayLink, Vault, VaultKeys } from "../../src/vault/index.ts";
import type { IngestOutcome } from "../../src/vault/ingest.ts";
import { call, startInstance } from "../_support/server.ts";

const FIELDS = [{ id: "name", label: "Name", kind: "text", required: true }];

Deno.test("two vault workers split one queue (no envelope twice) and wake as soon as one arrives", async () => {
  const relay = await startInstance({ SEALPOST_SERVER_ROLE: "relay" });
  const dir = await Deno.makeTempDir({ prefix: "sealpost-workers-" });
  const kv = await openStore(dir);
  const ports = vaultKvPorts(kv);
  const keys = new VaultKeys(dir, null);
  const outcomes: IngestOutcome[][] = [[], []];
  const workers = [0, 1].map((w) =>
    new Vault(ports, keys, new HttpRelayLink(relay.url, relay.credentials.ownerToken), {
      batchSize: 10,
      pollIntervalMs: 60_000, // so only a long poll's answer can wake a worker in time
      observe: (outcome) => outcomes[w].push(outcome),
    })
  );
  try {
    const [a, b] = workers;
    const gate = await ownerGate(a, relay.credentials.userId);
    const db = await a.createDatabase(gate.principal, "main");
    const form = await a.createForm(gate, { databaseId: db.id, title: "T", fields: FIELDS });
    const { manifest } = await a.publish(gate, form.formId);
    const submit = async (name: string) => {
      const ciphertext = await seal(buildPayload(manifest, { name }), manifest.recipient.publicKey);
      const res = await call(`${relay.url}/submissions`, {
        method: "POST",
        json: buildEnvelope(manifest, ciphertext),
      });
      assert.equal(res.status, 200);
    };
    const records = async () =>
      (await ports.records.list(form.formId, undefined, 1000)).items.length;
    const until = async (count: number, ms: number) => {
      const end = Date.now() + ms;
      while (Date.now() < end && await records() < count) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return await records();
    };

    a.ingest.start();
    b.ingest.start();
    await new Promise((resolve) => setTimeout(resolve, 300)); // both in their long polls
    await Promise.all(Array.from({ length: 120 }, (_, i) => submit(`n${i}`)));
    assert.equal(await until(120, 30_000), 120);
    const [ofA, ofB] = outcomes.map((list) => list.filter((o) => o === "record").length);
    assert.equal(ofA + ofB, 120, "each envelope became a record once");
    assert.ok(ofA > 0 && ofB > 0, `both workers ingested (${ofA} and ${ofB})`);
    assert.deepEqual(outcomes.flat().filter((o) => o !== "record"), [], "no duplicates");

    // Idle again: a single envelope wakes a long poll at once (the poll interval is a minute,
    // a long poll's own end 25 s away).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sent = Date.now();
    await submit("late");
    assert.equal(await until(121, 20_000), 121);
    const took = Date.now() - sent;
    assert.ok(took < 4000, `ingested ${took} ms after it was sent`);
    const queue = await call(`${relay.url}/owner/queues/${db.fingerprint}`, {
      token: relay.credentials.ownerToken,
    });
    assert.deepEqual(queue.body.items, [], "everything acknowledged");
  } finally {
    await Promise.all(workers.map((vault) => vault.ingest.stop()));
    kv.close();
    await relay.close();
    await Deno.remove(dir, { recursive: true });
  }
});
