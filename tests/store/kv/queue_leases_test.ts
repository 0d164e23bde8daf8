import assert from "node:assert/strict";
import { QueueLeases } from "../../../src/store/kv/queue_leases.ts";

const a = { holder: "a", ms: 1000 };
const b = { holder: "b", ms: 1000 };

Deno.test("queue leases: a running lease keeps others out; its holder renews it; it ends", () => {
  const leases = new QueueLeases();
  assert.equal(leases.take("fp", 1, a, 0), true);
  assert.equal(leases.take("fp", 1, b, 500), false, "a's lease runs");
  assert.equal(leases.take("other", 1, b, 500), true, "per queue");
  assert.equal(leases.take("fp", 1, a, 900), true, "renewed until 1900");
  assert.equal(leases.take("fp", 1, b, 1500), false);
  assert.equal(leases.take("fp", 1, b, 1900), true, "ended");
});

Deno.test("queue leases: released positions are free at once", () => {
  const leases = new QueueLeases();
  leases.take("fp", 1, a, 0);
  leases.take("fp", 2, a, 0);
  leases.release("fp", [1]);
  assert.equal(leases.take("fp", 1, b, 10), true);
  assert.equal(leases.take("fp", 2, b, 10), false);
  leases.release("nobody", [1]);
});

Deno.test("queue leases: ended leases are dropped as a queue grows, running ones kept", () => {
  const leases = new QueueLeases();
  for (let seq = 0; seq < 1024; seq++) leases.take("fp", seq, { holder: "a", ms: 10 }, 0);
  leases.take("fp", 5000, a, 0);
  assert.equal(leases.take("fp", 5000, b, 100), false, "kept: still running");
  for (let seq = 0; seq < 1024; seq++) {
    assert.equal(leases.take("fp", seq, b, 100), true, "ended leases give way");
  }
});

Deno.test("queue leases: expired leases are dropped once the table doubles, so running ones do not make every take scan it", () => {
  const leases = new QueueLeases();
  const long = { holder: "a", ms: 60_000 };
  for (let seq = 0; seq < 1024; seq++) leases.take("fp", seq, { holder: "a", ms: 10 }, 0);
  leases.take("fp", 1024, long, 100); // the first prune: the 1,024 ended leases go
  assert.equal(leases.size("fp"), 1);
  // 5,000 running leases (as the vault's, acked with their records, left to expire): they all
  // stay, and prunes that find nothing to drop move the next one to twice the size.
  for (let seq = 2000; seq < 7000; seq++) assert.ok(leases.take("fp", seq, long, 200));
  assert.equal(leases.size("fp"), 5001);
  // Once they have ended, the next prune (at twice the size it left) drops them all.
  for (let seq = 10_000; leases.size("fp") > 100; seq++) {
    leases.take("fp", seq, { holder: "a", ms: 10 }, 100_000 + seq * 100); // each ends soon
    assert.ok(leases.size("fp") <= 2 * 5001 + 1, "never above twice what a prune kept");
  }
  assert.ok(leases.size("fp") <= 2, "the prune dropped every ended lease");
  assert.equal(leases.take("fp", 2000, { holder: "b", ms: 10 }, 100_000), true, "ended: free");
});
