/**
 * Edit tokens: HMAC-SHA256 of the submission id under the relay secret. They are derived,
 * never stored, so a replay of the same submission returns the same token.
 *
 * @module
 */
import { timingSafeEqual } from "../crypto/hmac.ts";

const LABEL = "sealpost/edit-token/v1:";

/**
 * Issues and checks edit tokens.
 *
 * @example
 * ```ts
 * const tokens = await EditTokens.create(relaySecret);
 * const token = await tokens.issue(submissionId);
 * await tokens.verify(submissionId, token); // true
 * ```
 */
export class EditTokens {
  private constructor(private key: CryptoKey) {}

  /** Imports the relay secret as the HMAC key. */
  static async create(secret: Uint8Array<ArrayBuffer>): Promise<EditTokens> {
    const key = await crypto.subtle.importKey(
      "raw",
      secret,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    return new EditTokens(key);
  }

  /** The edit token of `submissionId` (base64url, 43 characters). */
  async issue(submissionId: string): Promise<string> {
    const mac = await crypto.subtle.sign(
      "HMAC",
      this.key,
      new TextEncoder().encode(LABEL + submissionId),
    );
    return new Uint8Array(mac).toBase64({ alphabet: "base64url", omitPadding: true });
  }

  /** Whether `token` is the edit token of `submissionId`, compared in constant time. */
  async verify(submissionId: string, token: string): Promise<boolean> {
    return timingSafeEqual(await this.issue(submissionId), token);
  }
}
