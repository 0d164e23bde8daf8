import assert from "node:assert/strict";
import { webhookKeys } from "../../../../src/store/kv/keys.ts";
import { webhookKvPorts } from "../../../../src/store/kv/webhook_ports.ts";
import { copyWebhooksFromKv } from "../../../../src/store/pg/from_kv/webhooks.ts";
import { webhookPgPorts } from "../../../../src/store/pg/webhook_ports.ts";
import { QueueDispatcher } from "../../../../src/store/kv/queue.ts";
import { freshKv } from "../../contract/_kv.ts";
import { freshPg } from "../../contract/_pg.ts";
import { attemptRow, configRow, failureFlag, pendingRow } from "../../contract/webhooks.ts";

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

Deno.test({
  name:
    "copyWebhooksFromKv: every webhook row read back through the PostgreSQL ports; a second run copies nothing",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const store = await freshKv();
    const pg = await freshPg();
    // The KV ports only write here: no queue listener runs (the scheduled message stays queued).
    const kv = webhookKvPorts(store.kv, new QueueDispatcher(store.kv));
    const ports = await webhookPgPorts(pg.sql);
    try {
      await kv.webhooks.createConfig(configRow("w1", "f1", { mappings: { b: "B", a: "A" } }));
      await kv.webhooks.createConfig(configRow("w2", "f1", { createdAt: "2026-11-23T13:00Z" }));
      await kv.webhooks.flagBlocked(["w2"], { ...failureFlag(null, "blocked"), eventId: "ev9" });
      const dueAt = Date.now() - 1_000;
      await kv.deliveries.createDelivery({
        state: pendingRow("d1", "w1", { token: "t1", attempts: 1 }),
        attempt: attemptRow(1),
        schedule: { dueAt },
      }, bytes(10, 1));
      await kv.deliveries.createDelivery({
        state: pendingRow("d2", "w1", { status: "failed", attempts: 1 }),
        attempt: attemptRow(1, 410),
        failure: { flag: failureFlag("d2", "permanent") },
      }, bytes(200_000, 2));
      await kv.deliveries.createDelivery(
        { state: pendingRow("d3", "w2", { status: "skipped" }) },
        null,
      );
      // A removal a stop interrupted: its marker and a delivery left to purge.
      await store.kv.set(webhookKeys.purge("w9"), true);
      await kv.deliveries.createDelivery({ state: pendingRow("x1", "w9") }, bytes(3, 3));
      await kv.deliveries.idle();

      const counts = await copyWebhooksFromKv(store.kv, store.dir, pg.sql);
      assert.deepEqual(counts, { configs: 2, flags: 2, removals: 1, deliveries: 4, attempts: 2 });
      const again = await copyWebhooksFromKv(store.kv, store.dir, pg.sql);
      assert.deepEqual(again, { configs: 0, flags: 0, removals: 0, deliveries: 0, attempts: 0 });

      for (const id of ["w1", "w2"]) {
        assert.deepEqual(await ports.webhooks.config(id), await kv.webhooks.config(id));
      }
      const w1 = await ports.webhooks.config("w1");
      assert.deepEqual(Object.keys(w1!.mappings), ["b", "a"], "mappings keep their order");
      assert.deepEqual(await ports.webhooks.flag("w1"), await kv.webhooks.flag("w1"));
      assert.deepEqual(await ports.webhooks.blockedFlags(), new Map([["w2", "ev9"]]));
      for (const id of ["d1", "d2", "d3"]) {
        const before = (await kv.deliveries.delivery(id))!.row;
        const after = (await ports.deliveries.delivery(id))!.row;
        assert.deepEqual(after, { ...before, bodyParts: 0 }, id);
        assert.deepEqual(await ports.deliveries.body(after), await kv.deliveries.body(before), id);
        assert.deepEqual(await ports.deliveries.attempts(id), await kv.deliveries.attempts(id));
      }
      assert.deepEqual(await ports.deliveries.failedIds("w1"), ["d2"]);
      assert.deepEqual(await ports.deliveries.countByState(100), { pending: 1, failed: 1 });
      assert.deepEqual(await kv.deliveries.countByState(100), { pending: 1, failed: 1 });
      const overdue = await Array.fromAsync(ports.deliveries.overdue(Date.now()));
      assert.deepEqual(overdue.map((s) => s.row.id), ["d1"]);
      // The pending delivery's attempt is scheduled once, with its token, for any worker.
      const came: string[] = [];
      ports.deliveries.onDue((attempt) => {
        came.push(`${attempt.deliveryId}:${attempt.token}`);
        return Promise.resolve();
      });
      for (let i = 0; i < 300 && came.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.deepEqual(came, ["d1:t1"]);
      // The interrupted removal finishes on PostgreSQL.
      await ports.webhooks.resumeRemovals();
      assert.equal(await ports.deliveries.delivery("x1"), null);
    } finally {
      await ports.close();
      await pg.close();
      await store.close();
    }
  },
});
