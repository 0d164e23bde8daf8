/**
 * The rate-limit middleware over real HTTP: 429 with `Retry-After` and the JSON error shape,
 * on in-memory buckets and on PostgreSQL buckets two relays share.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { errorResponse } from "../../src/http/errors.ts";
import { type Limiter, rateLimit } from "../../src/http/rate_limit.ts";
import { AddressRanges } from "../../src/ip/address.ts";
import { MemoryRateLimits } from "../../src/store/kv/rate_limits.ts";
import { PgRateLimits } from "../../src/store/pg/rate_limits.ts";
import type { RateLimitPort } from "../../src/store/ports/rate_limits.ts";
import { freshPg } from "../store/contract/_pg.ts";

/** A relay's stand-in: one rate-limited route on a random loopback port. */
function serveLimited(port: RateLimitPort, family = "submissions") {
  const limiter: Limiter = { port, family, rule: { per_minute: 1, burst: 3 } };
  const app = new Hono();
  app.use(rateLimit(limiter, new AddressRanges([])));
  app.get("/", (c) => c.json({ ok: true }));
  app.onError(errorResponse);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  return { url: `http://127.0.0.1:${server.addr.port}/`, close: () => server.shutdown() };
}

async function get(url: string) {
  const res = await fetch(url);
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.json() };
}

async function assertLimited(url: string) {
  const res = await get(url);
  assert.equal(res.status, 429);
  assert.equal(res.body.error.code, "rate_limited");
  assert.match(res.body.error.message, /retry in \d+ s/);
  const wait = Number(res.retryAfter);
  assert.ok(wait >= 59 && wait <= 60, `Retry-After: ${res.retryAfter}`);
}

Deno.test("rate limit over HTTP: the burst passes, then 429 with Retry-After (in memory)", async () => {
  const relay = serveLimited(new MemoryRateLimits());
  try {
    for (let i = 0; i < 3; i++) assert.equal((await get(relay.url)).status, 200);
    await assertLimited(relay.url);
  } finally {
    await relay.close();
  }
});

Deno.test("rate limit over HTTP: two relays on one PostgreSQL share a client's bucket", async () => {
  const pg = await freshPg();
  const a = serveLimited(new PgRateLimits(pg.sql));
  const b = serveLimited(new PgRateLimits(pg.open()));
  const other = serveLimited(new PgRateLimits(pg.open()), "owner");
  try {
    assert.equal((await get(a.url)).status, 200);
    assert.equal((await get(b.url)).status, 200);
    assert.equal((await get(a.url)).status, 200);
    // The burst of three is spent across both relays: each refuses now.
    await assertLimited(b.url);
    await assertLimited(a.url);
    assert.equal((await get(other.url)).status, 200, "another family counts apart");
  } finally {
    await Promise.all([a.close(), b.close(), other.close()]);
    await pg.close();
  }
});
