import assert from "node:assert/strict";
import type { DeliveryChange, StoredDelivery } from "../../../src/store/ports/webhooks.ts";
import { type DeliveryWrite, writeBatch } from "../../../src/store/pg/webhook_delivery_writes.ts";
import { PgWebhookConfigs } from "../../../src/store/pg/webhook_configs.ts";
import { PgWebhookDeliveries } from "../../../src/store/pg/webhook_deliveries.ts";
import { freshPg } from "../contract/_pg.ts";
import { attemptRow, failureFlag, pendingRow } from "../contract/webhooks.ts";

const create = (change: DeliveryChange): DeliveryWrite => ({ kind: "create", change, body: null });
const update = (before: StoredDelivery, change: DeliveryChange): DeliveryWrite => ({
  kind: "update",
  before,
  change,
});

Deno.test("pg delivery writes: one statement per batch, each write checked on its own", async () => {
  const pg = await freshPg();
  const deliveries = new PgWebhookDeliveries(pg.sql, {
    pollMs: 1000,
    claimLeaseMs: 30_000,
    maxInFlight: 8,
    retryMs: 1000,
  });
  const configs = new PgWebhookConfigs(pg.sql);
  const batch = (writes: DeliveryWrite[]) => pg.sql.begin((tx) => writeBatch(tx, writes));
  try {
    // Two creations of one id in a batch: the first only.
    const failed = { flag: failureFlag("d1", "permanent") };
    assert.deepEqual(
      await batch([
        create({ state: pendingRow("d1", "w1", { lastError: "first" }), failure: failed }),
        create({ state: pendingRow("d1", "w1", { lastError: "second" }) }),
        create({ state: pendingRow("d2", "w1"), attempt: attemptRow(1) }),
      ]),
      [true, false, true],
    );
    assert.equal((await deliveries.delivery("d1"))?.row.lastError, "first");
    assert.equal((await configs.flag("w1"))?.deliveryId, "d1");
    // Two steps of one revision: exactly one takes, and it is the one written.
    const d1 = (await deliveries.delivery("d1"))!;
    const d2 = (await deliveries.delivery("d2"))!;
    const done = await batch([
      update(d1, { state: { ...d1.row, round: 1 } }),
      update(d1, { state: { ...d1.row, round: 2 } }),
      update(d2, { state: { ...d2.row, status: "failed" }, failure: "clear" }),
    ]);
    assert.equal(done.filter(Boolean).length, 2);
    assert.equal(done[2], true);
    const round = (await deliveries.delivery("d1"))!.row.round;
    assert.equal(done[round - 1], true);
    // The flag: of the writes that took, the last one's (d2 cleared it).
    assert.equal(await configs.flag("w1"), null);
    // A later flag whose write failed its check changes nothing; an earlier one that took does.
    const now = (await deliveries.delivery("d2"))!;
    const stale = { ...now, revision: "1" } as StoredDelivery;
    const flagged = { flag: failureFlag("d2", "exhausted") };
    assert.deepEqual(
      await batch([
        update(now, { state: now.row, failure: flagged }),
        update(stale, { state: now.row, failure: "clear" }),
      ]),
      [true, false],
    );
    assert.equal((await configs.flag("w1"))?.reason, "exhausted");
    assert.deepEqual(await deliveries.failedIds("w1"), ["d1", "d2"]);
    assert.deepEqual(await deliveries.attempts("d2"), [attemptRow(1)]);
  } finally {
    await deliveries.close();
    await pg.close();
  }
});
