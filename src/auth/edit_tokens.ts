/**
 * Edit tokens: HMAC-SHA256 of the submission id under the relay secret. They are derived,
 * never stored, so a replay of the same submission returns the same token.
 *
 * @module
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { timingSafeEqual } from "../crypto/hmac.ts";

const LABEL = "sealpost/edit-token/v1:";
const utf8 = new TextEncoder();

/**
 * Issues and checks edit tokens.
 *
 * @example
 * ```ts
 * const tokens = new EditTokens(relaySecret);
 * const token = tokens.issue(submissionId);
 * tokens.verify(submissionId, token); // true
 * ```
 */
export class EditTokens {
  /** The keyed HMAC state, cloned per token (saves re-keying on every request). */
  #keyed: ReturnType<typeof hmac.create>;

  constructor(secret: Uint8Array) {
    this.#keyed = hmac.create(sha256, secret);
  }

  /** The edit token of `submissionId` (base64url, 43 characters). */
  issue(submissionId: string): string {
    const mac = this.#keyed.clone().update(utf8.encode(LABEL + submissionId)).digest();
    return mac.toBase64({ alphabet: "base64url", omitPadding: true });
  }

  /** Whether `token` is the edit token of `submissionId`, compared in constant time. */
  verify(submissionId: string, token: string): boolean {
    return timingSafeEqual(this.issue(submissionId), token);
  }
}
