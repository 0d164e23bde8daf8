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
