/**
 * src/server.ts: what shutdown waits for before the store closes.
 */
import assert from "node:assert/strict";
import { openConfiguredStore } from "../src/store/open.ts";
import { startInstance } from "./_support/server.ts";

Deno.test("shutdown: audit entries recorded unawaited are stored before the store closes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-test-" });
  try {
    const inst = await startInstance({}, dir);
    const audit = inst.server.vault!.audit;
    for (let n = 0; n < 20; n++) {
      // Left unawaited, as the action sites do.
      audit.record({
        action: "record_viewed",
        personId: "p1",
        target: { kind: "record", id: `r${n}` },
      });
    }
    await inst.close();
    const store = await openConfiguredStore(inst.config);
    try {
      const viewed = await store.ports.vault.audit.list({ limit: 100, action: "record_viewed" });
      assert.equal(viewed.length, 20);
      assert.equal(audit.failures, 0);
    } finally {
      await store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
