/**
 * The rules of authentication and authorization, free of HTTP: reading a bearer credential,
 * requiring a principal of a kind, and the one ownership check (another owner's resource is
 * answered exactly like a missing one, so ids of others' data leak nothing).
 *
 * @module
 */
import { type DomainError, Forbidden, Unauthenticated } from "../errors/index.ts";
import type { Principal } from "./principals.ts";

/** The scheme a 401 for a missing or bad token names (`WWW-Authenticate`). */
const CHALLENGE = "Bearer";

/**
 * The credential of an `Authorization: Bearer <credential>` value, or null.
 *
 * @example
 * ```ts
 * bearerOf("Bearer spo_…"); // "spo_…"
 * bearerOf("Basic dXNlcg=="); // null
 * ```
 */
export function bearerOf(authorization: string | undefined | null): string | null {
  const match = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization) : null;
  return match ? match[1] : null;
}

/**
 * The `unauthorized` error of a request without a usable bearer credential.
 *
 * @example
 * ```ts
 * throw unauthorized("Missing Authorization: Bearer token");
 * ```
 */
export function unauthorized(message: string): Unauthenticated {
  return new Unauthenticated("unauthorized", message, { challenge: CHALLENGE });
}

/**
 * The principal if it is of `kind`: none (an unknown, malformed or revoked token) is
 * `unauthorized`, one of the other kind `forbidden`.
 *
 * @example
 * ```ts
 * const owner = authorize(await authenticate(identity, token), "owner"); // owner.userId
 * ```
 */
export function authorize<K extends Principal["kind"]>(
  principal: Principal | null,
  kind: K,
): Extract<Principal, { kind: K }> {
  if (!principal) throw unauthorized("Invalid or revoked token");
  if (principal.kind !== kind) throw new Forbidden("forbidden", `This needs an ${kind} token`);
  return principal as Extract<Principal, { kind: K }>;
}

/**
 * The ownership check: the resource (a form, a recipient key's queue, a webhook, a file) must
 * belong to user `userId`. A missing resource (`ownerId` null or undefined) and another
 * user's both throw `notFound()`, so the answer never tells them apart.
 *
 * @example
 * ```ts
 * assertOwns(owner.userId, recipient?.userId, () =>
 *   new NotFound("recipient_not_found", `No recipient "${fingerprint}"`));
 * ```
 */
export function assertOwns(
  userId: string,
  ownerId: string | null | undefined,
  notFound: () => DomainError,
): void {
  if (ownerId === null || ownerId === undefined || ownerId !== userId) throw notFound();
}
