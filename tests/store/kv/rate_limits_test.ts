import assert from "node:assert/strict";
import { MemoryRateLimits, TokenBuckets } from "../../../src/store/kv/rate_limits.ts";

Deno.test("token bucket: state is bounded; the least recently seen address is forgotten", () => {
  const now = 0;
  const buckets = new TokenBuckets({ per_minute: 1, burst: 1 }, () => now, 3);
  for (const key of ["a", "b", "c"]) assert.equal(buckets.take(key), 0);
  assert.ok(buckets.take("a") > 0, "a is limited (and now the most recently seen)");
  assert.equal(buckets.take("d"), 0);
  assert.equal(buckets.size, 3, "never more than the bound");
  assert.ok(buckets.take("a") > 0, "a, seen recently, is still tracked");
  assert.equal(buckets.take("b"), 0, "b, the least recently seen, was forgotten");
  // A flood of fresh addresses keeps the size at the bound.
  for (let i = 0; i < 10_000; i++) buckets.take(`10.0.${i >> 8}.${i & 255}`);
  assert.equal(buckets.size, 3);
});

Deno.test("memory rate limits: the bound applies per family; a changed rule starts over", async () => {
  const limits = new MemoryRateLimits({ maxTracked: 2, now: () => 0 });
  const rule = { per_minute: 1, burst: 1 };
  for (const key of ["a", "b", "c"]) assert.equal(await limits.take("f", key, rule), 0);
  assert.equal(await limits.take("f", "a", rule), 0, "a was forgotten past the bound of 2");
  assert.ok(await limits.take("g", "a", rule) === 0, "another family counts apart");
  assert.ok(await limits.take("g", "a", rule) > 0);
  assert.equal(await limits.take("g", "a", { per_minute: 1, burst: 2 }), 0, "new rule, full");
});
