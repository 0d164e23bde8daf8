/**
 * The address rules: host kinds, same-address comparison, and when the console warns about
 * the address published forms carry.
 */
import assert from "node:assert/strict";
import { addressWarning, canonicalAddress, hostKind, sameAddress } from "../../src/config/index.ts";

Deno.test("hostKind: loopback, private and public hosts", () => {
  const cases: [string, string][] = [
    ["127.0.0.1", "loopback"],
    ["127.8.9.10", "loopback"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["localhost", "loopback"],
    ["LocalHost.", "loopback"],
    ["forms.localhost", "loopback"],
    ["0.0.0.0", "private"],
    ["::", "private"],
    ["10.1.2.3", "private"],
    ["172.20.0.5", "private"],
    ["192.168.1.10", "private"],
    ["100.64.3.4", "private"],
    ["169.254.169.254", "private"],
    ["fd00::1", "private"],
    ["[fe80::1]", "private"],
    ["myserver", "private"],
    ["printer.local", "private"],
    ["abcdefghijklmnop.onion", "private"],
    ["vault.internal", "private"],
    ["nas.home.arpa", "private"],
    ["forms.example.org", "public"],
    ["203.0.113.9", "public"],
    ["2001:db8::1", "public"],
    ["172.32.0.1", "public"],
  ];
  for (const [host, kind] of cases) assert.equal(hostKind(host), kind, host);
});

Deno.test("sameAddress: spellings of one address match, other addresses do not", () => {
  assert.ok(sameAddress("http://127.0.0.1:8080/", "http://127.0.0.1:8080"));
  assert.ok(sameAddress("HTTPS://Forms.Example.org:443", "https://forms.example.org/"));
  assert.ok(sameAddress("http://example.org:80/forms/", "http://example.org/forms"));
  assert.ok(!sameAddress("http://127.0.0.1:8080", "https://forms.example.org"));
  assert.ok(!sameAddress("http://forms.example.org", "https://forms.example.org"));
  assert.ok(!sameAddress("https://example.org/a", "https://example.org/b"));
  assert.ok(!sameAddress("http://127.0.0.1:8080", "http://127.0.0.1:8081"));
  assert.equal(canonicalAddress("HTTPS://Forms.Example.org:443/"), "https://forms.example.org");
  assert.equal(canonicalAddress("not a url/"), "not a url");
});

Deno.test("addressWarning: a loopback address on a server other machines reach", () => {
  assert.deepEqual(addressWarning("http://127.0.0.1:8080", "0.0.0.0"), {
    kind: "loopback",
    address: "http://127.0.0.1:8080",
    listen: "0.0.0.0",
  });
  assert.equal(addressWarning("http://localhost:8080", "::")?.kind, "loopback");
  assert.equal(addressWarning("http://[::1]:8080/", "192.168.1.5")?.kind, "loopback");
  // Listening on loopback too: a local instance, nothing to warn about.
  assert.equal(addressWarning("http://127.0.0.1:8080", "127.0.0.1"), null);
  assert.equal(addressWarning("http://127.0.0.1:8080", "localhost"), null);
  // Unknown listener (a vault whose forms carry its relay's address): no loopback warning.
  assert.equal(addressWarning("http://127.0.0.1:8080", null), null);
});

Deno.test("addressWarning: plain http on a public name, and what needs no warning", () => {
  assert.deepEqual(addressWarning("http://forms.example.org/", "0.0.0.0"), {
    kind: "plain_http",
    address: "http://forms.example.org",
  });
  assert.equal(addressWarning("http://203.0.113.9:8080", "127.0.0.1")?.kind, "plain_http");
  assert.equal(addressWarning("http://forms.example.org", null)?.kind, "plain_http");
  for (
    const fine of [
      "https://forms.example.org",
      "http://192.168.1.5:8080",
      "http://10.0.0.2",
      "http://sealpost.local:8080",
      "http://abcdefghijklmnop.onion",
      "http://intranet:8080",
    ]
  ) {
    assert.equal(addressWarning(fine, "0.0.0.0"), null, fine);
  }
  assert.equal(addressWarning("not a url", "0.0.0.0"), null);
});
