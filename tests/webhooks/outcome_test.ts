import assert from "node:assert/strict";
import {
  checkDestination,
  classifyStatus,
  isBlockedAddress,
  nextWaitSeconds,
  parseRetryAfter,
  snippetOf,
} from "../../src/webhooks/index.ts";

Deno.test("classification: the delivery outcome table, row by row", () => {
  for (const status of [200, 201, 202, 204, 299]) assert.equal(classifyStatus(status), "delivered");
  for (const status of [300, 301, 302, 303, 304, 307, 308]) {
    assert.equal(classifyStatus(status), "delivered", `${status} counts as success`);
  }
  for (const status of [408, 429, 500, 502, 503, 504, 599]) {
    assert.equal(classifyStatus(status), "transient", `${status} is transient`);
  }
  for (const status of [400, 401, 403, 404, 405, 409, 410, 413, 415, 422, 451, 499]) {
    assert.equal(classifyStatus(status), "permanent", `${status} is permanent`);
  }
});

Deno.test("Retry-After: delta-seconds and HTTP-date; malformed is ignored", () => {
  const now = Date.parse("2015-10-21T07:27:00Z");
  assert.equal(parseRetryAfter("120", now), 120);
  assert.equal(parseRetryAfter(" 0 ", now), 0);
  assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now), 60);
  assert.equal(parseRetryAfter("Wednesday, 21-Oct-15 07:28:30 GMT", now), 90);
  assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now), 0);
  assert.equal(parseRetryAfter(null, now), null);
  assert.equal(parseRetryAfter("-5", now), null);
  assert.equal(parseRetryAfter("1.5", now), null);
  assert.equal(parseRetryAfter("soon", now), null);
  assert.equal(parseRetryAfter("2015-10-21", now), null);
});

Deno.test("snippet: newlines collapsed, at most 200 characters", () => {
  assert.equal(snippetOf("ok\r\n  thanks\n\nbye\r"), "ok thanks bye");
  assert.equal(snippetOf("a\tb  c"), "a\tb  c");
  const long = "é".repeat(150) + "\n" + "😀".repeat(150);
  const snippet = snippetOf(long);
  assert.equal(Array.from(snippet).length, 200);
  assert.ok(snippet.startsWith("é".repeat(150) + " 😀"));
  assert.ok(!snippet.includes("\n"));
  assert.ok(!/[\uD800-\uDBFF]$/.test(snippet), "no half surrogate pair at the end");
});

const SETTINGS = {
  retry_schedule_seconds: [0, 5, 30, 120],
  jitter_ratio: 0.1,
  retry_after_max_seconds: 3600,
};

Deno.test("backoff: schedule plus up to jitter_ratio, Retry-After raises the wait, capped", () => {
  assert.equal(nextWaitSeconds(SETTINGS, 0, null, () => 0.9), 0);
  assert.equal(nextWaitSeconds(SETTINGS, 1, null, () => 0), 5);
  assert.equal(nextWaitSeconds(SETTINGS, 1, null, () => 1), 5.5);
  assert.equal(nextWaitSeconds(SETTINGS, 2, null, () => 0.5), 31.5);
  assert.equal(nextWaitSeconds(SETTINGS, 1, 60, () => 0), 60, "Retry-After raises");
  assert.equal(nextWaitSeconds(SETTINGS, 3, 60, () => 0), 120, "Retry-After never lowers");
  assert.equal(nextWaitSeconds(SETTINGS, 1, 86400, () => 0), 3600, "capped");
  assert.equal(nextWaitSeconds(SETTINGS, 4, null), null, "the schedule ran out");
  assert.equal(
    nextWaitSeconds({ ...SETTINGS, retry_after_max_seconds: 10e6 }, 1, 10e6, () => 0),
    30 * 24 * 3600,
    "never beyond Deno KV's 30-day delay",
  );
});

Deno.test("guard: loopback, private, link-local, metadata and reserved addresses are refused", () => {
  const blocked = [
    "127.0.0.1",
    "127.255.255.254",
    "0.0.0.0",
    "10.1.2.3",
    "100.64.0.1",
    "100.100.100.200",
    "169.254.169.254",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "192.0.0.8",
    "198.18.0.1",
    "224.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "[::1]",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:169.254.169.254",
    "64:ff9b::10.0.0.1",
    // Forms embedding IPv4 are refused whatever they embed (tests/webhooks/guard_test.ts).
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "fe80::1",
    "fe80::1%eth0",
    "fc00::1",
    "fd00:ec2::254",
    "ff02::1",
    "not-an-address",
  ];
  for (const address of blocked) assert.ok(isBlockedAddress(address), `${address} must be refused`);
  const allowed = [
    "93.184.216.34",
    "8.8.8.8",
    "172.32.0.1",
    "100.128.0.1",
    "192.169.0.1",
    "2606:2800:220:1:248:1893:25c8:1946",
    "2001:4860:4860::8888",
  ];
  for (const address of allowed) assert.ok(!isBlockedAddress(address), `${address} is public`);
});

Deno.test("guard: literals, localhost names and resolved names", async () => {
  const resolve = (host: string, type: "A" | "AAAA") => {
    const table: Record<string, Record<string, string[]>> = {
      "public.example": { A: ["93.184.216.34"], AAAA: [] },
      "rebind.example": { A: ["93.184.216.34"], AAAA: ["::1"] },
      "internal.example": { A: ["10.0.0.5"] },
    };
    const found = table[host]?.[type];
    return found ? Promise.resolve(found) : Promise.reject(new Deno.errors.NotFound(host));
  };
  const check = (url: string) => checkDestination(new URL(url), resolve);
  assert.deepEqual(await check("https://public.example/hook"), {
    ok: true,
    address: "93.184.216.34",
  });
  assert.deepEqual(await check("http://93.184.216.34/"), { ok: true });
  for (
    const url of [
      "http://127.0.0.1:8080/",
      "http://[::1]/",
      "http://localhost/",
      "http://api.localhost/",
      "http://LOCALHOST./",
      "http://169.254.169.254/latest/meta-data",
      "http://2130706433/",
      "http://0x7f.1/",
      "https://internal.example/",
      "https://rebind.example/",
    ]
  ) {
    const verdict = await check(url);
    assert.equal(verdict.ok, false, url);
    assert.ok(!verdict.ok && verdict.permanent && /Refused/.test(verdict.error), url);
  }
  const unknown = await check("https://nowhere.example/");
  assert.ok(!unknown.ok && !unknown.permanent && /Cannot resolve/.test(unknown.error));
});
