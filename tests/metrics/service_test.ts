/**
 * ServiceMetrics' counters read at scrape time: the audit log's failed records.
 */
import assert from "node:assert/strict";
import { type MetricsSources, ServiceMetrics } from "../../src/metrics/service.ts";

Deno.test("metrics: sealpost_audit_failures_total follows the audit log's count at each scrape", async () => {
  // Neither half: no store is read.
  const metrics = new ServiceMetrics({ relay: false, vault: false } as MetricsSources);
  let failures = 0;
  metrics.auditFailures(() => failures);
  const value = async () =>
    Number(/^sealpost_audit_failures_total (\d+)$/m.exec(await metrics.render())?.[1]);
  assert.equal(await value(), 0);
  failures = 3;
  assert.equal(await value(), 3);
  assert.equal(await value(), 3, "counted once");
  failures = 4;
  assert.equal(await value(), 4);
});
