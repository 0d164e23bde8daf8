/**
 * The renewal schedule of ACME certificates: due 30 days before expiry, checks at least every
 * 12 hours, a doubling wait after failures.
 */
import assert from "node:assert/strict";
import {
  CHECK_EVERY_MS,
  FIRST_RETRY_MS,
  MAX_RETRY_MS,
  nextCheckIn,
  RENEW_BEFORE_MS,
  renewalDue,
  retryIn,
} from "../../src/net/renewal.ts";

const DAY = 86_400_000;
const NOW = Date.parse("2030-01-01T00:00:00Z");

Deno.test("renewal: due from 30 days before expiry on, not a moment earlier", () => {
  assert.equal(RENEW_BEFORE_MS, 30 * DAY);
  assert.equal(renewalDue(new Date(NOW + 90 * DAY), NOW), false);
  assert.equal(renewalDue(new Date(NOW + 30 * DAY + 1), NOW), false);
  assert.equal(renewalDue(new Date(NOW + 30 * DAY), NOW), true);
  assert.equal(renewalDue(new Date(NOW - DAY), NOW), true, "expired");
});

Deno.test("renewal: the next check is when it falls due, at most 12 hours away, at once without a certificate", () => {
  assert.equal(nextCheckIn(null, NOW), 0);
  assert.equal(nextCheckIn(new Date(NOW + 90 * DAY), NOW), CHECK_EVERY_MS);
  assert.equal(nextCheckIn(new Date(NOW + 30 * DAY + 60_000), NOW), 60_000);
  assert.equal(nextCheckIn(new Date(NOW + 10 * DAY), NOW), 0);
  assert.equal(CHECK_EVERY_MS, 12 * 3_600_000);
});

Deno.test("renewal: retries wait 5 minutes, then twice as long each time, up to 12 hours", () => {
  assert.deepEqual(
    [1, 2, 3, 4].map(retryIn),
    [FIRST_RETRY_MS, 2 * FIRST_RETRY_MS, 4 * FIRST_RETRY_MS, 8 * FIRST_RETRY_MS],
  );
  assert.equal(FIRST_RETRY_MS, 300_000);
  assert.equal(retryIn(9), MAX_RETRY_MS);
  assert.equal(retryIn(50), MAX_RETRY_MS);
  // At most 4 failed attempts in the first hour (Let's Encrypt allows 5 per name and hour).
  let elapsed = 0;
  let attempts = 1;
  while (elapsed + retryIn(attempts) <= 3_600_000) elapsed += retryIn(attempts++);
  assert.ok(attempts <= 4, `${attempts} attempts in the first hour`);
});
