/**
 * The one error type of the crypto core.
 *
 * @module
 */

/** Why a crypto operation failed. */
export type CryptoErrorCode =
  /** A key has the wrong length, encoding or value (for example a low-order point). */
  | "invalid_key"
  /** Input is not what the operation accepts (bad base64, hex, too short, ...). */
  | "invalid_input"
  /** A sealed box did not authenticate: wrong key, truncated or altered bytes. */
  | "decryption_failed"
  /** A signature is missing, malformed or does not verify. */
  | "invalid_signature";

/**
 * Raised by every function in `src/crypto` for bad keys, bad input and failed
 * authentication. It never carries secret material.
 *
 * @example
 * ```ts
 * import { CryptoError } from "./errors.ts";
 * try {
 *   throw new CryptoError("decryption_failed", "Sealed box does not authenticate");
 * } catch (e) {
 *   if (e instanceof CryptoError && e.code === "decryption_failed") console.log(e.message);
 * }
 * ```
 */
export class CryptoError extends Error {
  /** Machine-readable reason. */
  readonly code: CryptoErrorCode;

  /** Builds an error with a reason code and a human message. */
  constructor(code: CryptoErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "CryptoError";
    this.code = code;
  }
}
