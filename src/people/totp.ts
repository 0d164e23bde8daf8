/**
 * TOTP second factor (RFC 6238 through `otpauth`): SHA-1, 6 digits, 30-second steps, the
 * parameters every authenticator app reads from an `otpauth://` URI. A code is accepted for
 * the step before, the current one and the one after (clock drift), and never twice: the
 * caller stores the step {@link verifyTotp} returns and passes it back as `lastStep`, so a
 * step at or before it is refused (a code seen over a shoulder cannot be replayed).
 *
 * @module
 */
import encodeQR from "qr";
import { HOTP, Secret, TOTP } from "otpauth";
import { timingSafeEqual } from "../crypto/hmac.ts";

/** The issuer authenticator apps show beside the account. */
export const TOTP_ISSUER = "Sealpost";
/** Seconds per step. */
export const TOTP_PERIOD = 30;
const DIGITS = 6;
/** Steps accepted either side of the current one. */
const WINDOW = 1;

/**
 * A new random TOTP secret (160 bits), in base32 as authenticator apps take it.
 *
 * @example
 * ```ts
 * const secret = newTotpSecret(); // "JBSWY3DPEHPK3PXP…" (32 characters)
 * ```
 */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/**
 * The `otpauth://totp/…` URI of `secret` for the person signing in as `email` (the QR code's
 * content, and the text to type in when no camera is at hand).
 *
 * @example
 * ```ts
 * totpUri(secret, "ada@example.org"); // "otpauth://totp/Sealpost:ada%40example.org?issuer=Sealpost&secret=…"
 * ```
 */
export function totpUri(secret: string, email: string): string {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label: email,
    secret: Secret.fromBase32(secret),
    algorithm: "SHA1",
    digits: DIGITS,
    period: TOTP_PERIOD,
  }).toString();
}

/**
 * The QR code of an `otpauth://` URI as an SVG document (shown once, while the factor is set
 * up).
 *
 * @example
 * ```ts
 * c.header("content-type", "image/svg+xml");
 * return c.body(totpQrSvg(totpUri(secret, email)));
 * ```
 */
export function totpQrSvg(uri: string): string {
  return encodeQR(uri, "svg");
}

/** The step `at` (epoch ms) falls in. */
export function totpStep(at: number): number {
  return Math.floor(at / 1000 / TOTP_PERIOD);
}

/**
 * Checks a 6-digit `code` (spaces ignored) against `secret` at `now`: the step it belongs to
 * (one of now's step ±1, and later than `lastStep`, the step of the last code used), or null.
 * Store the returned step as the person's new `lastStep` before signing them in.
 *
 * @example
 * ```ts
 * const step = verifyTotp(factor.secret, form.code, factor.lastStep);
 * if (step === null) return wrongCode();
 * ```
 */
export function verifyTotp(
  secret: string,
  code: string,
  lastStep: number | null,
  now: number = Date.now(),
): number | null {
  const token = code.replace(/\s+/g, "");
  if (!/^\d{6}$/.test(token)) return null;
  const key = Secret.fromBase32(secret);
  const current = totpStep(now);
  let found: number | null = null;
  for (let step = current - WINDOW; step <= current + WINDOW; step++) {
    const expected = HOTP.generate({
      secret: key,
      algorithm: "SHA1",
      digits: DIGITS,
      counter: step,
    });
    if (timingSafeEqual(expected, token) && found === null) found = step;
  }
  return found !== null && (lastStep === null || found > lastStep) ? found : null;
}
