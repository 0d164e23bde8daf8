import assert from "node:assert/strict";
import { Hono } from "hono";
import { clientIp } from "../../src/http/client_ip.ts";
import { AddressRanges } from "../../src/ip/address.ts";

/** The address clientIp picks for a request from `peer` carrying `forwarded`. */
async function pick(trusted: string[], peer: string, forwarded?: string): Promise<string> {
  const app = new Hono();
  const ranges = new AddressRanges(trusted);
  app.get("/", (c) => c.text(clientIp(c, ranges)));
  const headers: Record<string, string> = forwarded === undefined
    ? {}
    : { "x-forwarded-for": forwarded };
  const response = await app.fetch(new Request("http://t/", { headers }), {
    remoteAddr: { transport: "tcp", hostname: peer, port: 1 },
  });
  return await response.text();
}

Deno.test("clientIp: no trusted proxies: the peer, whatever X-Forwarded-For says", async () => {
  assert.equal(await pick([], "198.51.100.1", "203.0.113.9"), "198.51.100.1");
});

Deno.test("clientIp: the header is read only when the peer is a trusted proxy", async () => {
  assert.equal(await pick(["10.0.0.0/8"], "198.51.100.1", "203.0.113.9"), "198.51.100.1");
  assert.equal(await pick(["10.0.0.0/8"], "10.0.0.2", "203.0.113.9"), "203.0.113.9");
});

Deno.test("clientIp: the right-most hop that is not a trusted proxy; spoofed left hops ignored", async () => {
  const trusted = ["10.0.0.0/8", "2001:db8::/32"];
  assert.equal(await pick(trusted, "10.0.0.2", "1.1.1.1, 203.0.113.9, 10.0.0.7"), "203.0.113.9");
  assert.equal(await pick(trusted, "10.0.0.2", "spoofed, 203.0.113.9"), "203.0.113.9");
  assert.equal(await pick(trusted, "2001:db8::5", "2001:db8::9, 2a00:1450::1"), "2a00:1450::1");
  // Only proxies in the chain (or no header): the left-most hop, else the peer.
  assert.equal(await pick(trusted, "10.0.0.2", "10.1.1.1, 10.0.0.7"), "10.1.1.1");
  assert.equal(await pick(trusted, "10.0.0.2"), "10.0.0.2");
  // IPv4-mapped spellings of a trusted peer count as trusted.
  assert.equal(await pick(trusted, "::ffff:10.0.0.2", "203.0.113.9"), "203.0.113.9");
});
