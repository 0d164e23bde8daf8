/**
 * Who is asking: the principals a bearer token (or a console session) stands for. An admin
 * manages users; an owner acts on its own user's data, so it always carries that `userId`.
 *
 * @module
 */
import type { ApiToken } from "../store/ports/identity.ts";

/** The holder of an admin token (`spa_…`): creates users, owns no data. */
export interface AdminPrincipal {
  readonly kind: "admin";
  /** The id of the token it presented. */
  readonly tokenId: string;
}

/** The holder of an owner token (`spo_…`) or of a console session made from one. */
export interface OwnerPrincipal {
  readonly kind: "owner";
  /** The id of the token it presented (or its console session was made from). */
  readonly tokenId: string;
  /** The user whose forms, databases, records, queues and files it may touch. */
  readonly userId: string;
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
