/**
 * Who is asking: the principals a bearer token (or a console session) stands for. An admin
 * manages users; an owner acts on its own relay account's data (queues, manifests, files), so
 * it always carries that `userId`; a person acts on the vault's databases they are a member of.
 *
 * @module
 */
import type { ApiToken } from "../store/ports/identity.ts";
import type { Scope } from "../store/ports/person_tokens.ts";

/** The holder of an admin token (`spa_…`): creates users, owns no data. */
export interface AdminPrincipal {
  readonly kind: "admin";
  /** The id of the token it presented. */
  readonly tokenId: string;
}

/** The holder of an owner token (`spo_…`) on the relay's routes. */
export interface OwnerPrincipal {
  readonly kind: "owner";
  /** The id of the token it presented. */
  readonly tokenId: string;
  /** The user whose forms, databases, records, queues and files it may touch. */
  readonly userId: string;
}

/**
 * A person of the vault (src/store/ports/people.ts), by a person token (`spt_…`, or an owner
 * token `init` made, which bootstrap turned into one) or a console session (every scope). What
 * it may do on a database is its role there (src/people/access.ts) AND its scopes.
 */
export interface PersonPrincipal {
  readonly kind: "person";
  readonly personId: string;
  readonly instanceAdmin: boolean;
  /** What its token allows (a console session: every scope). */
  readonly scopes: ReadonlySet<Scope>;
  /** The token it presented; null for a console session. */
  readonly tokenId: string | null;
  /** The SHA-256 of its console session's cookie; null for a token. */
  readonly sessionId: string | null;
}

/** Any authenticated principal. */
export type Principal = AdminPrincipal | OwnerPrincipal;

/**
 * The principal a stored token row stands for; null for an owner row without a user (a
 * token that cannot act for anyone).
 *
 * @example
 * ```ts
 * principalOf({ id: "ab", kind: "owner", userId: "u1", secretHash: "…", createdAt: "…" });
 * // { kind: "owner", tokenId: "ab", userId: "u1" }
 * ```
 */
export function principalOf(row: ApiToken): Principal | null {
  if (row.kind === "admin") return { kind: "admin", tokenId: row.id };
  return row.userId ? { kind: "owner", tokenId: row.id, userId: row.userId } : null;
}
