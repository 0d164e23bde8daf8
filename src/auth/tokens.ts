/**
 * API tokens: `spo_<id>_<secret>` (owner) and `spa_<id>_<secret>` (admin). Only a SHA-256 of
 * the secret part is stored (in the identity port, src/store/ports/identity.ts); a presented
 * secret is compared in constant time, and the token stands for the principal of its row.
 * A person's token with the scope `relay:queue` (`spt_…`, src/people/tokens.ts) is also an
 * owner row here, so a vault worker may present it to the relay.
 *
 * @module
 */
import { timingSafeEqual } from "../crypto/hmac.ts";
import type { ApiToken, IdentityPort } from "../store/ports/identity.ts";
import { type Principal, principalOf } from "./principals.ts";

/** Where token rows are read: the identity port (its `getToken`). */
export type TokenSource = Pick<IdentityPort, "getToken">;

const PREFIX = { owner: "spo", admin: "spa" } as const;
const TOKEN_RE = /^(sp[oat])_([0-9a-f]{24})_([A-Za-z0-9_-]{43})$/;

/** Whether a token written with `prefix` may stand for a row of `kind`. */
function prefixFits(prefix: string, kind: ApiToken["kind"]): boolean {
  return prefix === PREFIX[kind] || (prefix === "spt" && kind === "owner");
}

function base64url(bytes: Uint8Array): string {
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

/**
 * The stored form of a token's secret part: its SHA-256, lowercase hex.
 *
 * @example
 * ```ts
 * await sha256Hex("secret"); // "2bb80d…"
 * ```
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return new Uint8Array(digest).toHex();
}

/**
 * The parts of a new token: a random id (24 hex digits), a random secret (43 base64url
 * characters) and the secret's stored hash; `<prefix>_<id>_<secret>` is the token.
 *
 * @example
 * ```ts
 * const { id, secret, secretHash } = await newTokenParts();
 * ```
 */
export async function newTokenParts(): Promise<{ id: string; secret: string; secretHash: string }> {
  const id = crypto.getRandomValues(new Uint8Array(12)).toHex();
  const secret = base64url(crypto.getRandomValues(new Uint8Array(32)));
  return { id, secret, secretHash: await sha256Hex(secret) };
}

/**
 * Makes a new token for `kind` (and `userId` for owner tokens) and the row to store.
 * The token string is returned once and never kept.
 *
 * @example
 * ```ts
 * const { token, row } = await mintToken("owner", user.id); // token "spo_…"
 * ```
 */
export async function mintToken(
  kind: ApiToken["kind"],
  userId: string | null,
): Promise<{ token: string; row: ApiToken }> {
  const { id, secret, secretHash } = await newTokenParts();
  const row: ApiToken = { id, kind, userId, secretHash, createdAt: new Date().toISOString() };
  return { token: `${PREFIX[kind]}_${id}_${secret}`, row };
}

/**
 * The principal a presented token stands for, or null when it is malformed, unknown,
 * revoked, of another kind than its prefix says (`spt_`: an owner row), or its secret is
 * wrong.
 *
 * @example
 * ```ts
 * const principal = await authenticate(identity, "spo_…"); // { kind: "owner", userId, tokenId }
 * ```
 */
export async function authenticate(
  tokens: TokenSource,
  token: string,
): Promise<Principal | null> {
  const match = TOKEN_RE.exec(token);
  if (!match) return null;
  const [, prefix, id, secret] = match;
  const row = await tokens.getToken(id);
  if (!row || !prefixFits(prefix, row.kind)) return null;
  return timingSafeEqual(await sha256Hex(secret), row.secretHash) ? principalOf(row) : null;
}
