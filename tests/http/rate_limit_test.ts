import assert from "node:assert/strict";
import { TokenBuckets } from "../../src/http/rate_limit.ts";

Deno.test("token bucket: burst, then the sustained rate, per address", () => {
  let now = 0;
  const buckets = new TokenBuckets({ per_minute: 60, burst: 3 }, () => now);
  assert.equal(buckets.take("a"), 0);
  assert.equal(buckets.take("a"), 0);
  assert.equal(buckets.take("a"), 0);
  assert.equal(buckets.take("a"), 1, "empty: one token a second");
  assert.equal(buckets.take("b"), 0, "another address has its own bucket");
  now += 1000;
  assert.equal(buckets.take("a"), 0);
  assert.equal(buckets.take("a"), 1);
  now += 60_000;
  for (let i = 0; i < 3; i++) assert.equal(buckets.take("a"), 0, "refills up to the burst");
  assert.ok(buckets.take("a") > 0);
});

Deno.test("token bucket: Retry-After rounds up to whole seconds", () => {
  let now = 0;
  const buckets = new TokenBuckets({ per_minute: 6, burst: 1 }, () => now);
  assert.equal(buckets.take("a"), 0);
  assert.equal(buckets.take("a"), 10);
  now += 5000;
  assert.equal(buckets.take("a"), 5);
});

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
