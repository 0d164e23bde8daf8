/**
 * People's API tokens: `spt_<id>_<secret>`, and the owner tokens `spo_…` that bootstrap turned
 * into person tokens (same id and hash, src/people/bootstrap.ts), so existing strings keep
 * working on vault routes. Only the SHA-256 of the secret is stored (the person tokens port);
 * a presented secret is compared in constant time. An expired token, a revoked one, or one
 * whose person is gone stands for nobody.
 *
 * @module
 */
import type { PersonPrincipal } from "../auth/principals.ts";
import { newTokenParts, sha256Hex, type TokenSource } from "../auth/tokens.ts";
import { timingSafeEqual } from "../crypto/hmac.ts";
import type { PeoplePort } from "../store/ports/people.ts";
import type { PersonToken, PersonTokensPort, Scope } from "../store/ports/person_tokens.ts";

/**
 * What authenticating a person token reads: the tokens and their people, how an owner token
 * not yet a person token becomes one (src/people/bootstrap.ts's `adoptOwnerToken`), and the
 * relay's tokens (an admin token is told apart from a bad one).
 */
export interface PersonTokenSource {
  personTokens: PersonTokensPort;
  people: Pick<PeoplePort, "get">;
  adopt?: (token: string) => Promise<boolean>;
  identity?: TokenSource;
}

const TOKEN_RE = /^(sp[ot])_([0-9a-f]{24})_([A-Za-z0-9_-]{43})$/;

/**
 * Makes a new person token and the row to store; the token string is returned once and never
 * kept.
 *
 * @example
 * ```ts
 * const { token, row } = await mintPersonToken(person.id, "laptop", ["records:read"], null);
 * await personTokens.save(row); // token "spt_…"
 * ```
 */
export async function mintPersonToken(
  personId: string,
  name: string,
  scopes: Scope[],
  expiresAt: string | null,
): Promise<{ token: string; row: PersonToken }> {
  const { id, secret, secretHash } = await newTokenParts();
  const row: PersonToken = {
    id,
    personId,
    name,
    scopes,
    secretHash,
    createdAt: new Date().toISOString(),
    expiresAt,
    lastUsedAt: null,
  };
  return { token: `spt_${id}_${secret}`, row };
}

/**
 * The person a presented token (`spt_…`, or an `spo_…` owner token bootstrap carried over)
 * stands for, with the token's scopes; null when it is malformed, unknown, revoked, expired,
 * its secret is wrong or its person is gone. Records the use (`touch`).
 *
 * @example
 * ```ts
 * const person = await authenticatePerson(ports, "spt_…"); // { kind: "person", personId, … }
 * ```
 */
export async function authenticatePerson(
  source: PersonTokenSource,
  token: string,
  now: Date = new Date(),
): Promise<PersonPrincipal | null> {
  const match = TOKEN_RE.exec(token);
  if (!match) return null;
  const [, prefix, id, secret] = match;
  let row = await source.personTokens.get(id);
  if (!row && prefix === "spo" && source.adopt && await source.adopt(token)) {
    row = await source.personTokens.get(id);
  }
  if (!row || !timingSafeEqual(await sha256Hex(secret), row.secretHash)) return null;
  if (row.expiresAt !== null && Date.parse(row.expiresAt) <= now.getTime()) return null;
  const person = await source.people.get(row.personId);
  if (!person) return null;
  await source.personTokens.touch(row.id, now.toISOString());
  return {
    kind: "person",
    personId: person.id,
    instanceAdmin: person.instanceAdmin,
    scopes: new Set(row.scopes),
    tokenId: row.id,
    sessionId: null,
  };
}
