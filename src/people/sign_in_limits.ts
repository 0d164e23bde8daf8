/**
 * Sign-in limits: token buckets (the rate-limit port: in memory on Deno KV, shared by every
 * process on PostgreSQL) in two families, taken at each sign-in attempt:
 *
 * - `sign_in_address`, per client address (an IPv6 client counts by its /64): one address
 *   guessing at many accounts;
 * - `sign_in_account`, per account: the SHA-256 of the lowercased email asked for, whether a
 *   person has it or not (so the limit tells nothing about which emails exist): many addresses
 *   guessing at one account.
 *
 * Rules: `[rate_limits.sign_in_address]` and `[rate_limits.sign_in_account]`, under the same
 * master switch as every other limit (`rate_limits.enabled`). A passkey sign-in names no email
 * until it verifies, so it takes from the address's bucket only.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import type { Config } from "../config/index.ts";
import { toHex, utf8Encode } from "../crypto/encoding.ts";
import { RateLimited } from "../errors/index.ts";
import { clientKey } from "../ip/address.ts";
import type { RateLimitPort, RateLimitRule } from "../store/ports/rate_limits.ts";

/** The bucket family of each limit, on the rate-limit port. */
export const SIGN_IN_FAMILIES = {
  address: "sign_in_address",
  account: "sign_in_account",
} as const;

/**
 * The two sign-in limits of one instance.
 *
 * @example
 * ```ts
 * const limits = new SignInLimits(rateLimits, config.rate_limits);
 * await limits.take(clientIp, form.email); // throws RateLimited when either bucket is empty
 * ```
 */
export class SignInLimits {
  #rules: { address: RateLimitRule; account: RateLimitRule } | null;

  constructor(private port: RateLimitPort, rules: Config["rate_limits"]) {
    this.#rules = rules.enabled
      ? { address: rules.sign_in_address, account: rules.sign_in_account }
      : null;
  }

  /**
   * Takes one attempt from the client address's bucket and, when `email` is given, from that
   * account's. Throws `RateLimited` (`sign_in_limited`, one message for both, with the wait)
   * when either is empty; the account's bucket is left alone when the address's is.
   */
  async take(address: string, email: string | null): Promise<void> {
    if (!this.#rules) return;
    const { address: perAddress, account: perAccount } = this.#rules;
    let wait = await this.port.take(SIGN_IN_FAMILIES.address, clientKey(address), perAddress);
    if (wait === 0 && email !== null) {
      wait = await this.port.take(SIGN_IN_FAMILIES.account, accountKey(email), perAccount);
    }
    if (wait > 0) {
      throw new RateLimited(
        "sign_in_limited",
        `Too many sign-in attempts; try again in ${wait} s`,
        wait,
      );
    }
  }
}

/**
 * The account bucket's key of an email: SHA-256 (hex) of it trimmed and lowercased (the store
 * of buckets never holds an email).
 *
 * @example
 * ```ts
 * accountKey(" Ada@Example.org") === accountKey("ada@example.org"); // true
 * ```
 */
export function accountKey(email: string): string {
  return toHex(sha256(utf8Encode(email.trim().toLowerCase())));
}
