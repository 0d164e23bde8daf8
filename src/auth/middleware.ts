/**
 * Authentication on routes: middleware that require an owner or an admin token and set the
 * principal as a typed context variable (`c.var.owner`, `c.var.admin`), and the edit token of
 * a submission's amend.
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import type { AdminPrincipal, OwnerPrincipal } from "./principals.ts";
import { authorize, bearerOf, unauthorized } from "./rules.ts";
import { authenticate } from "./tokens.ts";

/** Context variables of routes behind `requireOwner`. */
export type OwnerEnv = { Variables: { owner: OwnerPrincipal } };
/** Context variables of routes behind `requireAdmin`. */
export type AdminEnv = { Variables: { admin: AdminPrincipal } };
/** Context variables of a router that mounts both kinds of route. */
export type AuthEnv = { Variables: { owner: OwnerPrincipal; admin: AdminPrincipal } };

function presented(c: Context): string {
  const token = bearerOf(c.req.header("authorization"));
  if (!token) throw unauthorized("Missing Authorization: Bearer token");
  return token;
}

/**
 * Requires an owner token (401 without a valid one, 403 for an admin token); sets
 * `c.var.owner`.
 *
 * @example
 * ```ts
 * app.get("/owner/me", requireOwner(kv), (c) => c.json({ userId: c.var.owner.userId }));
 * ```
 */
export function requireOwner(kv: Deno.Kv): MiddlewareHandler<OwnerEnv> {
  return async (c, next) => {
    c.set("owner", authorize(await authenticate(kv, presented(c)), "owner"));
    await next();
  };
}

/**
 * Requires an admin token (401 without a valid one, 403 for an owner token); sets
 * `c.var.admin`.
 *
 * @example
 * ```ts
 * app.post("/admin/users", requireAdmin(kv), handler);
 * ```
 */
export function requireAdmin(kv: Deno.Kv): MiddlewareHandler<AdminEnv> {
  return async (c, next) => {
    c.set("admin", authorize(await authenticate(kv, presented(c)), "admin"));
    await next();
  };
}

/**
 * The edit token a submission's amend presents as its bearer, or a 401 (whether it is the
 * submission's is the intake's check).
 *
 * @example
 * ```ts
 * await intake.amend(submissionId, editTokenOf(c), envelope);
 * ```
 */
export function editTokenOf(c: Context): string {
  const token = bearerOf(c.req.header("authorization"));
  if (!token) throw unauthorized("Missing Authorization: Bearer <editToken>");
  return token;
}
