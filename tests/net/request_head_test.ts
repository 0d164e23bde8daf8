import assert from "node:assert/strict";
import { ConfigSchema } from "../../src/config/schema.ts";
import { connectionLimits } from "../../src/net/config.ts";
import { connectionCap, openFileLimit } from "../../src/net/limits.ts";
import { BadRequest, parseRequestHead } from "../../src/net/request_head.ts";

const head = (text: string) => parseRequestHead(text);

Deno.test("parseRequestHead: method, target, headers, framing and keep-alive", () => {
  const get = head("GET /a?b=1 HTTP/1.1\r\nHost: x\r\nX-A: 1\r\nX-A: 2");
  assert.equal(get.method, "GET");
  assert.equal(get.target, "/a?b=1");
  assert.deepEqual({ ...get.headers }, { Host: "x", "X-A": "1, 2" });
  assert.equal(new Headers(get.headers).get("x-a"), "1, 2", "as Headers joins repeated fields");
  const proto = head("GET / HTTP/1.1\r\nHost: x\r\n__proto__: y");
  assert.equal(new Headers(proto.headers).get("__proto__"), "y", "a field named __proto__ is kept");
  assert.equal(get.host, "x");
  assert.deepEqual(get.framing, { kind: "none" });
  assert.ok(get.keepAlive);
  assert.ok(!head("GET / HTTP/1.1\r\nHost: x\r\nConnection: close").keepAlive);
  assert.ok(!head("GET / HTTP/1.0").keepAlive, "HTTP/1.0 closes by default");
  assert.ok(head("GET / HTTP/1.0\r\nConnection: keep-alive").keepAlive);
  assert.deepEqual(head("PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 12").framing, {
    kind: "length",
    length: 12,
  });
  assert.deepEqual(head("PUT / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked").framing, {
    kind: "chunked",
  });
  assert.ok(head("PUT / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue").expectContinue);
  assert.equal(head("GET http://x:1/a/b?c=d HTTP/1.1\r\nHost: x").target, "/a/b?c=d");
  assert.equal(head("GET http://x HTTP/1.1\r\nHost: x").target, "/");
  assert.equal(head("GET http://x?q HTTP/1.1\r\nHost: x").target, "/?q");
});

Deno.test("parseRequestHead: ambiguous or malformed heads are refused with their status", () => {
  const cases: [string, number][] = [
    ["GET / HTTP/1.1", 400], // no Host
    ["GET  / HTTP/1.1\r\nHost: x", 400],
    ["GET ftp://x/ HTTP/1.1\r\nHost: x", 400],
    ["G(T / HTTP/1.1\r\nHost: x", 400],
    ["get / HTTP/1.1\r\nHost: x", 501], // methods are case-sensitive
    ["BREW / HTTP/1.1\r\nHost: x", 501],
    ["GET / HTTP/2.0\r\nHost: x", 505],
    ["GET / HTTP/1.1\r\nHost: x\r\n folded", 400],
    ["GET / HTTP/1.1\r\nHost: x\r\nHost: y", 400],
    ["PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6", 400],
    ["GET / HTTP/1.1\r\nHost: x\r\nBad Name: 1", 400],
    ["PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 6", 400],
    ["PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5", 400], // a list, even agreeing
    ["PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5", 400],
    ["PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: -1", 400],
    ["PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked", 400],
    ["PUT / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked", 501],
    ["GET /\x01 HTTP/1.1\r\nHost: x", 400],
  ];
  for (const [text, status] of cases) {
    assert.throws(
      () => head(text),
      (err: unknown) => err instanceof BadRequest && err.status === status,
      JSON.stringify(text),
    );
  }
});

Deno.test("openFileLimit and connectionCap: below the descriptor limit", () => {
  const limits =
    "Limit  Soft Limit  Hard Limit  Units\nMax open files            1024                 4096                 files\n";
  assert.equal(openFileLimit(() => limits), 1024);
  assert.equal(openFileLimit(() => "garbage", 256), 256);
  assert.equal(
    openFileLimit(() => {
      throw new Error("no /proc");
    }, 256),
    256,
  );
  assert.ok(openFileLimit() > 0);
  assert.equal(connectionCap(0, 1024), 448);
  assert.equal(connectionCap(100, 1024), 100);
  assert.equal(connectionCap(100_000, 1024), 448, "clamped");
  assert.equal(connectionCap(0, 64), 16, "a floor for tiny limits");
});

Deno.test("connectionLimits: config keys map to limits", () => {
  const limits = connectionLimits(
    ConfigSchema.parse({
      server: { header_timeout_seconds: 3, max_connections: 100, trusted_proxies: ["10.0.0.0/8"] },
    }),
    1024,
  );
  assert.equal(limits.headerTimeoutMs, 3000);
  assert.equal(limits.requestTimeoutMs, 30_000);
  assert.equal(limits.maxConnections, 100);
  assert.equal(limits.maxConnectionsPerAddress, 128);
  assert.ok(limits.isExempt("10.1.2.3") && !limits.isExempt("192.0.2.1"));
});
