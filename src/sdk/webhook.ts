/**
 * Verification of the service's webhook signatures, for receivers.
 *
 * @module
 */
import { hmacSha256Hex, timingSafeEqual } from "../crypto/hmac.ts";

/** The signature header's default name (the owner may choose another). */
export const WEBHOOK_SIGNATURE_HEADER = "X-Service-Signature";

const PREFIX = "sha256=";

/**
 * Checks a webhook signature: the header must be `sha256=` followed by the lowercase hex
 * HMAC-SHA256 of the exact raw body under the shared secret. Compares in constant time.
 * Returns false (never throws) for a missing header, another scheme, a mismatch, or an empty
 * secret (a misconfiguration, never a valid key).
 *
 * Read the raw body before parsing it: re-serialised JSON does not have the same bytes.
 *
 * @example
 * ```ts
 * import { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER } from "./webhook.ts";
 * Deno.serve(async (req) => {
 *   const raw = new Uint8Array(await req.arrayBuffer());
 *   const header = req.headers.get(WEBHOOK_SIGNATURE_HEADER);
 *   if (!verifyWebhookSignature(raw, header, Deno.env.get("WEBHOOK_SECRET")!)) {
 *     return new Response("bad signature", { status: 401 });
 *   }
 *   const record = JSON.parse(new TextDecoder().decode(raw));
 *   return new Response(null, { status: 204 });
 * });
 * ```
 */
export function verifyWebhookSignature(
  rawBody: Uint8Array | string,
  headerValue: string | null | undefined,
  secret: Uint8Array | string,
): boolean {
  if (typeof headerValue !== "string" || !headerValue.startsWith(PREFIX)) return false;
  if (typeof secret === "string" ? secret === "" : secret.length === 0) return false;
  const expected = PREFIX + hmacSha256Hex(secret, rawBody);
  return timingSafeEqual(expected, headerValue);
}
