import assert from "node:assert/strict";
import {
  AddressRanges,
  clientKey,
  isAddressOrCidr,
  parseIpv4,
  parseIpv6,
} from "../../src/ip/address.ts";

Deno.test("parse: IPv4 and IPv6 (with embedded IPv4), and refusals", () => {
  assert.equal(parseIpv4("10.0.0.1"), 0x0a000001);
  assert.equal(parseIpv4("256.0.0.1"), null);
  assert.equal(parseIpv4("1.2.3"), null);
  assert.deepEqual(parseIpv6("::1"), [0, 0, 0, 0, 0, 0, 0, 1]);
  assert.deepEqual(parseIpv6("::ffff:10.0.0.1"), [0, 0, 0, 0, 0, 0xffff, 0x0a00, 1]);
  assert.deepEqual(parseIpv6("2001:db8::"), [0x2001, 0xdb8, 0, 0, 0, 0, 0, 0]);
  for (const bad of ["1::2::3", "12345::", "g::1", "1:2:3:4:5:6:7:8:9", ""]) {
    assert.equal(parseIpv6(bad), null, bad);
  }
});

Deno.test("isAddressOrCidr: addresses and ranges with valid prefixes only", () => {
  for (const good of ["10.0.0.1", "10.0.0.0/8", "0.0.0.0/0", "::1", "2001:db8::/32", "::/0"]) {
    assert.ok(isAddressOrCidr(good), good);
  }
  for (const bad of ["proxy", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/", "1/2/3"]) {
    assert.ok(!isAddressOrCidr(bad), bad);
  }
});

Deno.test("AddressRanges: membership across prefix lengths and spellings", () => {
  const ranges = new AddressRanges(["10.0.0.0/8", "192.168.1.7", "2001:db8:abcd::/48", "::1"]);
  assert.ok(ranges.has("10.255.0.1"));
  assert.ok(!ranges.has("11.0.0.1"));
  assert.ok(ranges.has("192.168.1.7"));
  assert.ok(!ranges.has("192.168.1.8"));
  assert.ok(ranges.has("::ffff:10.1.2.3"), "IPv4-mapped IPv6 of a listed IPv4");
  assert.ok(ranges.has("2001:db8:abcd:1::1"));
  assert.ok(!ranges.has("2001:db8:abce::1"));
  assert.ok(ranges.has("[::1]"));
  assert.ok(!ranges.has("not-an-address"));
  assert.ok(new AddressRanges([]).empty);
  assert.throws(() => new AddressRanges(["nope"]), /Not an IP address/);
  // Odd prefix lengths inside a group.
  const odd = new AddressRanges(["172.16.0.0/12", "fe80::/10"]);
  assert.ok(odd.has("172.31.255.255") && !odd.has("172.32.0.0"));
  assert.ok(odd.has("febf::1") && !odd.has("fec0::1"));
});

Deno.test("clientKey: IPv6 clients by /64, IPv4-mapped as IPv4, others as they are", () => {
  assert.equal(clientKey("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  assert.equal(clientKey("2001:db8:1:2:bbbb::7"), "2001:db8:1:2::/64");
  assert.equal(clientKey("::ffff:203.0.113.9"), "203.0.113.9");
  assert.equal(clientKey("203.0.113.9"), "203.0.113.9");
  assert.equal(clientKey("unknown"), "unknown");
});
