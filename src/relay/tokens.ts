/**
 * Stored API tokens: the row of a token id (its kind, user and the SHA-256 of its secret).
 * Minting and checking tokens is `src/auth/tokens.ts`.
 *
 * @module
 */
import { keys, type TokenRow } from "../store/keys.ts";

/**
 * The stored row of token `id`, or null when there is none (never issued, or revoked).
 *
 * @example
 * ```ts
 * const row = await tokenRow(kv, "0123456789abcdef01234567");
 * ```
 */
export async function tokenRow(kv: Deno.Kv, id: string): Promise<TokenRow | null> {
  return (await kv.get<TokenRow>(keys.token(id))).value;
}
