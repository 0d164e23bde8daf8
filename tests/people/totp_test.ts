import assert from "node:assert/strict";
import { HOTP, Secret, URI } from "otpauth";
import {
  newTotpSecret,
  TOTP_PERIOD,
  totpQrSvg,
  totpStep,
  totpUri,
  verifyTotp,
} from "../../src/people/totp.ts";

/** RFC 6238 appendix B's SHA-1 key, "12345678901234567890", in base32. */
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

/** The 6-digit code of `secret` at step `step` (an independent HOTP of the same library). */
const codeAt = (secret: string, step: number) =>
  HOTP.generate({ secret: Secret.fromBase32(secret), counter: step });

Deno.test("totp: RFC 6238 appendix B vectors (SHA-1; the last 6 of its 8 digits)", () => {
  const vectors: [number, string][] = [
    [59, "94287082"],
    [1111111109, "07081804"],
    [1111111111, "14050471"],
    [1234567890, "89005924"],
    [2000000000, "69279037"],
    [20000000000, "65353130"],
  ];
  for (const [seconds, eight] of vectors) {
    const step = verifyTotp(RFC_SECRET, eight.slice(2), null, seconds * 1000);
    assert.equal(step, Math.floor(seconds / 30), `T = ${seconds}`);
  }
});

Deno.test("totp interop: oathtool computes the codes we accept", async () => {
  const secret = newTotpSecret();
  const at = 1_800_000_000;
  const out = await new Deno.Command("oathtool", {
    args: ["--totp", "--base32", "--now", `@${at}`, secret],
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const code = new TextDecoder().decode(out.stdout).trim();
  assert.equal(verifyTotp(secret, code, null, at * 1000), totpStep(at * 1000));
});

Deno.test("totp: a code counts one step either side of now, not two", () => {
  const secret = newTotpSecret();
  const now = 1_800_000_007_000;
  const step = totpStep(now);
  for (const delta of [-1, 0, 1]) {
    assert.equal(verifyTotp(secret, codeAt(secret, step + delta), null, now), step + delta);
  }
  for (const delta of [-2, 2]) {
    assert.equal(verifyTotp(secret, codeAt(secret, step + delta), null, now), null);
  }
});

Deno.test("totp: a step is used once; an older step after a newer one is refused", () => {
  const secret = newTotpSecret();
  const now = 1_800_000_007_000;
  const step = totpStep(now);
  const used = verifyTotp(secret, codeAt(secret, step), null, now);
  assert.equal(used, step);
  assert.equal(verifyTotp(secret, codeAt(secret, step), used, now), null, "the same code again");
  assert.equal(verifyTotp(secret, codeAt(secret, step - 1), used, now), null, "the step before");
  assert.equal(verifyTotp(secret, codeAt(secret, step + 1), used, now), step + 1, "the next");
  const later = now + TOTP_PERIOD * 1000;
  assert.equal(verifyTotp(secret, codeAt(secret, step + 1), step + 1, later), null);
});

Deno.test("totp: spaces are ignored; anything but 6 digits is refused", () => {
  const secret = newTotpSecret();
  const now = 1_800_000_007_000;
  const code = codeAt(secret, totpStep(now));
  assert.equal(
    verifyTotp(secret, ` ${code.slice(0, 3)} ${code.slice(3)} `, null, now),
    totpStep(now),
  );
  for (const bad of ["", "12345", "1234567", "abcdef", `${code}0`, code.slice(1)]) {
    assert.equal(verifyTotp(secret, bad, null, now), null, bad);
  }
});

Deno.test("totp: a secret is 160 random bits; the URI names Sealpost and the email; a QR as SVG", () => {
  const secret = newTotpSecret();
  assert.match(secret, /^[A-Z2-7]{32}$/);
  assert.notEqual(newTotpSecret(), secret);
  const uri = totpUri(secret, "ada@example.org");
  const parsed = URI.parse(uri);
  assert.equal(parsed.issuer, "Sealpost");
  assert.equal(parsed.label, "ada@example.org");
  assert.equal(parsed.secret.base32, secret);
  assert.match(uri, /^otpauth:\/\/totp\/Sealpost:ada%40example\.org\?/);
  assert.match(uri, /[?&]issuer=Sealpost(&|$)/);
  assert.match(uri, /[?&]algorithm=SHA1&digits=6&period=30/);
  const svg = totpQrSvg(uri);
  assert.match(svg, /^<svg[^>]*>/);
  assert.match(svg, /<\/svg>\s*$/);
});
