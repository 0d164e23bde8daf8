/**
 * Relay and vault processes as a deployment (tests/_support/topology.ts): submissions spread
 * over the relays become exactly one record each, while one relay and one vault worker are
 * killed with SIGKILL mid-run; nothing a relay acknowledged is lost, no record is saved twice,
 * and the form's webhook receives every record at least once. `TOPOLOGY_COUNT` sets the number
 * of submissions of the PostgreSQL run (default 10,000; e.g. 500 for a quick try).
 */
import assert from "node:assert/strict";
import {
  type Deployment,
  KV_BACKING,
  pgBacking,
  poll,
  queued,
  recordIds,
  sealEnvelopes,
  type ServeProcess,
  startDeployment,
  submitSpread,
} from "../_support/topology.ts";
import { submitForm } from "../../src/sdk/mod.ts";
import { startReceiver } from "../webhooks/_harness.ts";

/** A process killed with SIGKILL once a share `at` (0 to 1) of the submissions is acknowledged. */
interface Kill {
  at: number;
  pick(d: Deployment): ServeProcess;
  /** Start it again (same data dir and port) this many ms after the kill; never when null. */
  restartAfterMs: number | null;
}

/** What a run measured (printed, for the report and the docs). */
interface Figures {
  submitSeconds: number;
  retries: number;
  perRelay: number[];
  recordsSeconds: number;
  webhookSeconds: number;
  duplicateDeliveries: number;
}

/** Submissions with an uploaded photo (slot, PUT to the blob store, claim by a vault worker). */
const FILES = 12;

async function runScenario(d: Deployment, count: number, kills: Kill[]): Promise<Figures> {
  const receiver = startReceiver(() => new Response(null, { status: 204 }));
  try {
    const token = d.ownerToken;
    const hook = await fetch(`${d.vaults[0].url}/owner/forms/${d.formId}/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.url }),
    });
    assert.equal(hook.status, 201, await hook.text());
    // Files first, through the balancer: slot, upload and claim each meet whichever relay.
    const photos = new Map<string, Uint8Array>();
    await Promise.all(Array.from({ length: FILES }, async (_, i) => {
      const bytes = crypto.getRandomValues(new Uint8Array(2000 + i));
      const receipt = await submitForm(d.manifest, { name: `f${i}`, email: `f${i}@example.com` }, {
        files: { photo: { data: bytes, mime: "image/png", fileName: `p${i}.png` } },
      });
      photos.set(receipt.submissionId, bytes);
    }));
    const envelopes = await sealEnvelopes(d.manifest, count);
    const pending: Promise<void>[] = [];
    const killed = new Set<Kill>();
    const started = performance.now();
    const spread = await submitSpread(envelopes, d.liveRelays, {
      onAck: (n) => {
        for (const kill of kills) {
          if (killed.has(kill) || n < kill.at * count) continue;
          killed.add(kill);
          const proc = kill.pick(d);
          pending.push((async () => {
            await proc.stop("SIGKILL");
            if (kill.restartAfterMs === null) return;
            await new Promise((r) => setTimeout(r, kill.restartAfterMs!));
            await proc.restart();
          })());
        }
      },
    });
    await Promise.all(pending);
    assert.equal(killed.size, kills.length, "every kill happened mid-run");
    assert.equal(spread.acknowledged.size, count);

    // Every acknowledged submission becomes exactly one record (ids: the submission ids).
    const reader = d.vaults.find((v) => v.alive)!;
    const relay = d.liveRelays()[0];
    await poll(
      "The vault workers drained the queue",
      async () => await queued(relay, d.relayToken, d.fingerprint) === 0 || null,
      240_000,
      1000,
    );
    const recordsSeconds = (performance.now() - started) / 1000;
    const total = count + FILES;
    const submitted = (id: string) => spread.acknowledged.has(id) || photos.has(id);
    const ids = await recordIds(reader.url, token, d.formId);
    assert.equal(ids.length, total, "one record per submission");
    assert.equal(new Set(ids).size, total, "no record twice");
    for (const id of ids) assert.ok(submitted(id), `record ${id} was submitted`);
    const quarantine = await fetch(`${reader.url}/vault/quarantine`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal((await quarantine.json()).items.length, 0, "nothing quarantined");

    // Webhooks: at least once each.
    const delivered = () => receiver.received.map((r) => JSON.parse(r.text)._recordId as string);
    await poll(
      "Every record reached the webhook",
      () => Promise.resolve(new Set(delivered()).size >= total || null),
      240_000,
      1000,
    );
    const deliveries = delivered();
    const unique = new Set(deliveries);
    assert.equal(unique.size, total);
    for (const id of unique) assert.ok(submitted(id));
    // Each photo's webhook carries a read URL of the stored bytes.
    for (const entry of receiver.received) {
      const body = JSON.parse(entry.text);
      const bytes = photos.get(body._recordId);
      if (!bytes) continue;
      const got = await fetch(body.photo);
      assert.equal(got.status, 200, `${body.photo}: ${await got.clone().text()}`);
      assert.deepEqual(await got.bytes(), bytes);
    }
    return {
      submitSeconds: spread.seconds,
      retries: spread.retries,
      perRelay: d.relays.map((r) => spread.perRelay.get(r.url) ?? 0),
      recordsSeconds,
      webhookSeconds: (performance.now() - started) / 1000,
      duplicateDeliveries: deliveries.length - unique.size,
    };
  } finally {
    await receiver.close();
  }
}

Deno.test("topology on KV: a relay and a vault worker, each killed with SIGKILL mid-run and restarted", async () => {
  const d = await startDeployment({ relays: 1, vaults: 1, backing: KV_BACKING });
  try {
    const count = 2000;
    const figures = await runScenario(d, count, [
      { at: 0.3, pick: (d) => d.relays[0], restartAfterMs: 300 },
      { at: 0.6, pick: (d) => d.vaults[0], restartAfterMs: 300 },
    ]);
    console.log(`KV topology, ${count} submissions: ${JSON.stringify(figures)}`);
    assert.ok(figures.retries > 0, "some sends hit the killed relay and were retried");
  } finally {
    await d.close();
  }
});

Deno.test("topology on PostgreSQL and radosgw: 3 relays and 2 vault workers, 10,000 submissions, a relay and a worker killed with SIGKILL", async () => {
  const backing = await pgBacking();
  try {
    const d = await startDeployment({ relays: 3, vaults: 2, backing });
    try {
      const count = Number(Deno.env.get("TOPOLOGY_COUNT") ?? 10_000);
      const figures = await runScenario(d, count, [
        { at: 0.3, pick: (d) => d.relays[1], restartAfterMs: null },
        { at: 0.5, pick: (d) => d.vaults[1], restartAfterMs: null },
      ]);
      console.log(`PostgreSQL topology, ${count} submissions: ${JSON.stringify(figures)}`);
      // Spread over the three relays; the killed one stopped taking submissions.
      for (const n of figures.perRelay) assert.ok(n > 0);
      assert.ok(figures.perRelay[1] < figures.perRelay[0]);
    } finally {
      await d.close();
    }
  } finally {
    await backing.close();
  }
});
