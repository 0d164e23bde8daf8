/**
 * Authentication on routes: middleware that require a person's token (vault and webhook
 * routes), an owner token (relay routes) or an admin token and set the principal as a typed
 * context variable (`c.var.person`, `c.var.owner`, `c.var.admin`), and the edit token of a
 * submission's amend.
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { authenticatePerson, type PersonTokenSource } from "../people/person_tokens.ts";
import type { AdminPrincipal, OwnerPrincipal, PersonPrincipal } from "./principals.ts";
import { Forbidden } from "../errors/index.ts";
import { authorize, bearerOf, unauthorized } from "./rules.ts";
import { authenticate, type TokenSource } from "./tokens.ts";

/** Context variables of routes behind `requireOwner`. */
export type OwnerEnv = { Variables: { owner: OwnerPrincipal } };
/** Context variables of routes behind `requirePerson`. */
export type PersonEnv = { Variables: { person: PersonPrincipal } };
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
 * app.get("/owner/me", requireOwner(identity), (c) => c.json({ userId: c.var.owner.userId }));
 * ```
 */
export function requireOwner(tokens: TokenSource): MiddlewareHandler<OwnerEnv> {
  return async (c, next) => {
    c.set("owner", authorize(await authenticate(tokens, presented(c)), "owner"));
    await next();
  };
}

/**
 * Requires a person's token (`spt_…`, or an owner token `spo_…` bootstrap carried over): 401
 * without a valid, unexpired one; sets `c.var.person`. What the person may do is checked per
 * resource (src/people/access.ts).
 *
 * @example
 * ```ts
 * app.use("/vault/*", requirePerson(vaultPorts));
 * ```
 */
export function requirePerson(source: PersonTokenSource): MiddlewareHandler<PersonEnv> {
  return async (c, next) => {
    const token = presented(c);
    const person = await authenticatePerson(source, token);
    if (!person) {
      const other = source.identity && await authenticate(source.identity, token);
      if (other?.kind === "admin") throw new Forbidden("forbidden", "This needs an owner token");
      throw unauthorized("Invalid, expired or revoked token");
    }
    c.set("person", person);
    await next();
  };
}

/**
 * Requires an admin token (401 without a valid one, 403 for an owner token); sets
 * `c.var.admin`.
 *
 * @example
 * ```ts
 * app.post("/admin/users", requireAdmin(identity), handler);
 * ```
 */
export function requireAdmin(tokens: TokenSource): MiddlewareHandler<AdminEnv> {
  return async (c, next) => {
    c.set("admin", authorize(await authenticate(tokens, presented(c)), "admin"));
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
