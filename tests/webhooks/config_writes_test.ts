import assert from "node:assert/strict";
import { Conflict, TooLarge } from "../../src/errors/index.ts";
import { webhookKvPorts } from "../../src/store/kv/webhook_ports.ts";
import { QueueDispatcher } from "../../src/store/kv/queue.ts";
import { createConfig, updateConfig } from "../../src/webhooks/index.ts";
import { configRow } from "../store/contract/webhooks.ts";

Deno.test("config writes: a taken id and a stale edit are conflicts, an oversized row too large", async () => {
  using kv = await Deno.openKv(":memory:");
  const { webhooks } = webhookKvPorts(kv, new QueueDispatcher(kv));
  const row = configRow("w1");
  await createConfig(webhooks, row);
  await assert.rejects(createConfig(webhooks, row), (err: Conflict) => {
    assert.ok(err instanceof Conflict);
    assert.equal(err.code, "conflict");
    assert.match(err.message, /Webhook id "w1" is taken/);
    return true;
  });
  const edited = { ...row, name: "edited", updatedAt: "2026-11-23T12:00:09.000Z" };
  await updateConfig(webhooks, row, edited);
  await assert.rejects(updateConfig(webhooks, row, { ...row, name: "stale" }), (err: Conflict) => {
    assert.ok(err instanceof Conflict);
    assert.match(err.message, /changed meanwhile/);
    return true;
  });
  const big = { ...edited, template: "x".repeat(70 * 1024), updatedAt: "2026-11-23T12:00:10.000Z" };
  await assert.rejects(updateConfig(webhooks, edited, big), (err: TooLarge) => {
    assert.ok(err instanceof TooLarge);
    assert.equal(err.code, "webhook_too_large");
    return true;
  });
  assert.equal((await webhooks.config("w1"))?.name, "edited");
});
