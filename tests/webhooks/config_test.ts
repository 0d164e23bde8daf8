import assert from "node:assert/strict";
import type { WebhookConfig } from "../../src/store/ports/webhooks.ts";
import {
  newConfig,
  patchConfig,
  WebhookCreateSchema,
  WebhookPatchSchema,
} from "../../src/webhooks/config.ts";
import { webhookView, WebhookViewSchema } from "../../src/webhooks/api/webhooks.ts";

const URL_ = "https://crm.example/hooks/in";

function created(input: Record<string, unknown> = {}): WebhookConfig {
  return newConfig("contact", WebhookCreateSchema.parse({ url: URL_, ...input })).row;
}

Deno.test("concurrency: an integer 1 to 64, or null; absent on create is null", () => {
  for (const concurrency of [1, 4, 64, null]) {
    assert.equal(WebhookCreateSchema.parse({ url: URL_, concurrency }).concurrency, concurrency);
    assert.equal(WebhookPatchSchema.parse({ concurrency }).concurrency, concurrency);
  }
  for (const concurrency of [0, 65, 1.5, -1, "4", true]) {
    const create = WebhookCreateSchema.safeParse({ url: URL_, concurrency });
    assert.equal(create.success, false, JSON.stringify(concurrency));
    assert.deepEqual(create.error!.issues.map((i) => i.path), [["concurrency"]]);
    assert.equal(WebhookPatchSchema.safeParse({ concurrency }).success, false);
  }
  assert.equal(WebhookCreateSchema.parse({ url: URL_ }).concurrency, undefined);
  assert.equal(created().concurrency, null);
  assert.equal(created({ concurrency: 3 }).concurrency, 3);
  assert.equal(WebhookPatchSchema.parse({}).concurrency, undefined);
});

Deno.test("concurrency: a patch sets it, null resets it, absent keeps it", () => {
  const row = created({ concurrency: 2 });
  const kept = patchConfig(row, WebhookPatchSchema.parse({ name: "CRM" })).row;
  assert.equal(kept.concurrency, 2);
  const set = patchConfig(row, WebhookPatchSchema.parse({ concurrency: 16 })).row;
  assert.equal(set.concurrency, 16);
  const reset = patchConfig(set, WebhookPatchSchema.parse({ concurrency: null })).row;
  assert.equal(reset.concurrency, null);
});

Deno.test("concurrency: the view shows it, null for the instance default", () => {
  const own = webhookView(created({ concurrency: 4 }), null);
  assert.equal(own.concurrency, 4);
  assert.equal(WebhookViewSchema.parse(own).concurrency, 4);
  assert.equal(webhookView(created(), null).concurrency, null);
  assert.equal(WebhookViewSchema.parse(webhookView(created(), null)).concurrency, null);
});
