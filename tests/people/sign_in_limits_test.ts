import assert from "node:assert/strict";
import { ConfigSchema } from "../../src/config/schema.ts";
import { RateLimited } from "../../src/errors/index.ts";
import { accountKey, SIGN_IN_FAMILIES, SignInLimits } from "../../src/people/sign_in_limits.ts";
import { MemoryRateLimits } from "../../src/store/kv/rate_limits.ts";
import type { RateLimitPort, RateLimitRule } from "../../src/store/ports/rate_limits.ts";

const defaults = ConfigSchema.parse({}).rate_limits;
const rules = (address: RateLimitRule, account: RateLimitRule) => ({
  ...defaults,
  sign_in_address: address,
  sign_in_account: account,
});

/** Takes `n` attempts; answers how many were let through. */
async function attempts(limits: SignInLimits, n: number, address: string, email: string | null) {
  let allowed = 0;
  for (let i = 0; i < n; i++) {
    try {
      await limits.take(address, email);
      allowed++;
    } catch (err) {
      assert.ok(err instanceof RateLimited);
      assert.equal(err.code, "sign_in_limited");
      assert.match(err.message, /^Too many sign-in attempts; try again in \d+ s$/);
      assert.ok(err.retryAfterSeconds >= 1);
    }
  }
  return allowed;
}

Deno.test("sign-in limits: defaults are 30 a minute per address, a burst of 10 then 3 a minute per account", () => {
  assert.deepEqual(defaults.sign_in_address, { per_minute: 30, burst: 30 });
  assert.deepEqual(defaults.sign_in_account, { per_minute: 3, burst: 10 });
});

Deno.test("sign-in limits: one account is limited across addresses, whatever the email's case", async () => {
  const limits = new SignInLimits(new MemoryRateLimits({ now: () => 0 }), defaults);
  let allowed = 0;
  for (let i = 0; i < 15; i++) {
    const email = i % 2 ? "Ada@Example.org " : "ada@example.org";
    allowed += await attempts(limits, 1, `203.0.113.${i}`, email);
  }
  assert.equal(allowed, 10);
  assert.equal(await attempts(limits, 1, "203.0.113.99", "bob@example.org"), 1, "another account");
});

Deno.test("sign-in limits: one address is limited across accounts (an IPv6 /64 counts as one)", async () => {
  const limits = new SignInLimits(
    new MemoryRateLimits({ now: () => 0 }),
    rules({ per_minute: 5, burst: 5 }, { per_minute: 60, burst: 60 }),
  );
  let allowed = 0;
  for (let i = 0; i < 8; i++) {
    allowed += await attempts(limits, 1, `2001:db8:1:2::${i + 1}`, `person${i}@example.org`);
  }
  assert.equal(allowed, 5);
  assert.equal(await attempts(limits, 1, "2001:db8:1:3::1", "x@example.org"), 1, "another /64");
  assert.equal(await attempts(limits, 3, "2001:db8:1:2::1", null), 0, "a passkey attempt too");
});

Deno.test("sign-in limits: an address refused takes nothing from the account", async () => {
  const taken: string[] = [];
  const port: RateLimitPort = {
    take: (family) => {
      taken.push(family);
      return Promise.resolve(family === SIGN_IN_FAMILIES.address ? 7 : 0);
    },
  };
  await assert.rejects(new SignInLimits(port, defaults).take("203.0.113.9", "ada@example.org"), {
    retryAfterSeconds: 7,
  });
  assert.deepEqual(taken, ["sign_in_address"]);
});

Deno.test("sign-in limits: off with rate_limits.enabled = false", async () => {
  const limits = new SignInLimits(new MemoryRateLimits({ now: () => 0 }), {
    ...rules({ per_minute: 1, burst: 1 }, { per_minute: 1, burst: 1 }),
    enabled: false,
  });
  assert.equal(await attempts(limits, 20, "203.0.113.9", "ada@example.org"), 20);
});

Deno.test("sign-in limits: the account key is the SHA-256 of the trimmed, lowercased email", () => {
  assert.equal(accountKey(" Ada@Example.ORG "), accountKey("ada@example.org"));
  assert.equal(
    accountKey("ada@example.org"),
    "cfe00dde46ef942601ffafb9e2825e802858b460e586b8305b344c1eb826357d", // python3 hashlib
  );
});
