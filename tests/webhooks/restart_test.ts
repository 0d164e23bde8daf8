import assert from "node:assert/strict";
import { emitRecordEvent } from "../../src/store/kv/record_events.ts";
import { KV_FILE } from "../../src/store/kv/file.ts";
import { formatSavedAt } from "../../src/webhooks/index.ts";
import { vaultForm } from "../_support/vault.ts";
import { spawnServer } from "../_support/process.ts";
import { call } from "../_support/server.ts";
import { freePort, startReceiver, until } from "./_harness.ts";
import { KvWrite } from "../../src/store/kv/write.ts";

const COUNT = 100;

interface Delivery {
  recordId: string;
  status: string;
  attempts: number;
}

Deno.test({
  name: "restart: receiver down, 100 deliveries pending, kill -9; bring both back: all 100 arrive",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "sealpost-webhook-restart-" });
    const configFile = `${dataDir}/fast.toml`;
    const schedule = [0, ...new Array(60).fill(0.5)];
    await Deno.writeTextFile(
      configFile,
      `[webhooks]\nretry_schedule_seconds = [${schedule.join(", ")}]\njitter_ratio = 0.2\n` +
        "request_timeout_seconds = 2\n",
    );
    const env = { SEALPOST_CONFIG: configFile };
    const receiverPort = freePort();
    let receiver: ReturnType<typeof startReceiver> | null = null;
    let server = await spawnServer(dataDir, env);
    try {
      const token = server.credentials.ownerToken;
      await vaultForm(server, "Contact", [{
        id: "name",
        kind: "text",
        label: "Name",
        required: true,
      }], { formId: "contact" });
      const created = await call(`${server.url}/owner/forms/contact/webhooks`, {
        method: "POST",
        token,
        json: {
          url: `http://127.0.0.1:${receiverPort}/hook`,
          signingSecret: "restart-test-secret-0123456789",
        },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const deliveries = `${server.url}/owner/webhooks/${created.body.id}/deliveries?limit=500`;
      await server.stop();

      // The vault saves 100 records (the server is down: the events wait in its store).
      const recordIds = new Set<string>();
      const kv = await Deno.openKv(`${dataDir}/${KV_FILE}`);
      for (let i = 0; i < COUNT; i++) {
        const id = crypto.randomUUID().replaceAll("-", "");
        const op = new KvWrite();
        emitRecordEvent(op, {
          eventId: id,
          reason: "insert",
          recordId: `rec_${i}_${id.slice(0, 6)}`,
          formId: "contact",
          schemaVersion: 1,
          savedAt: formatSavedAt(new Date()),
          values: { name: `person ${i}` },
        });
        await op.commit(kv);
        recordIds.add(`rec_${i}_${id.slice(0, 6)}`);
      }
      kv.close();

      // Up again with the receiver down: every delivery is tried, fails, and waits.
      server = await spawnServer(dataDir, env, server.port);
      const pending = await until(
        async () => {
          const res = await call(deliveries, { token });
          const items: Delivery[] = res.body.items;
          return items.length === COUNT &&
              items.every((d) => d.status === "pending" && d.attempts >= 1)
            ? items
            : null;
        },
        "100 pending deliveries with a failed attempt",
        30_000,
      );
      assert.deepEqual(new Set(pending.map((d) => d.recordId)), recordIds);

      const killed = await server.stop("SIGKILL");
      assert.equal(killed.signal, "SIGKILL");

      receiver = startReceiver(() => new Response("ok"), receiverPort);
      server = await spawnServer(dataDir, env, server.port);
      await until(
        () => {
          const seen = new Set(receiver!.received.map((r) => JSON.parse(r.text)._recordId));
          return seen.size === COUNT;
        },
        "all 100 records at the receiver",
        60_000,
      );
      const seen = new Set(receiver.received.map((r) => JSON.parse(r.text)._recordId));
      assert.deepEqual(seen, recordIds);
      const done = await until(
        async () => {
          const res = await call(deliveries, { token });
          const items: Delivery[] = res.body.items;
          return items.every((d) => d.status === "delivered") ? items : null;
        },
        "every delivery marked delivered",
        30_000,
      );
      assert.equal(done.length, COUNT);
    } finally {
      await server.stop();
      await receiver?.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
