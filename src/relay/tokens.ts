/**
 * API tokens: `spo_…` (owner) and `spa_…` (admin). Only a SHA-256 of the secret part is
 * stored; presented secrets are compared in constant time.
 *
 * @module
 */
import { timingSafeEqual } from "../crypto/hmac.ts";
import type { IdentityPort, TokenRow } from "../store/ports/identity.ts";

const PREFIX = { owner: "spo", admin: "spa" } as const;
const TOKEN_RE = /^(sp[oa])_([0-9a-f]{24})_([A-Za-z0-9_-]{43})$/;

function base64url(bytes: Uint8Array): string {
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return new Uint8Array(digest).toHex();
}

/**
 * Makes a new token for `kind` (and `userId` for owner tokens) and the row to store.
 * The token string is returned once and never kept.
 */
export async function mintToken(
  kind: TokenRow["kind"],
  userId: string | null,
): Promise<{ token: string; row: TokenRow }> {
  const id = crypto.getRandomValues(new Uint8Array(12)).toHex();
  const secret = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const row: TokenRow = {
    id,
    kind,
    userId,
    secretHash: await sha256Hex(secret),
    createdAt: new Date().toISOString(),
  };
  return { token: `${PREFIX[kind]}_${id}_${secret}`, row };
}

/**
 * Resolves a presented token to its row, or null when unknown, malformed or wrong.
 *
 * @example
 * ```ts
 * const row = await verifyToken(identity, "spo_…");
 * ```
 */
export async function verifyToken(
  identity: Pick<IdentityPort, "getToken">,
  token: string,
): Promise<TokenRow | null> {
  const match = TOKEN_RE.exec(token);
  if (!match) return null;
  const [, prefix, id, secret] = match;
  const row = await identity.getToken(id);
  if (!row || PREFIX[row.kind] !== prefix) return null;
  return timingSafeEqual(await sha256Hex(secret), row.secretHash) ? row : null;
}
