/**
 * Bearer-token middleware for the owner and admin APIs.
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "../http/errors.ts";
import { KvIdentity } from "../store/kv/identity.ts";
import type { TokenRow } from "../store/keys.ts";
import { verifyToken } from "./tokens.ts";

/** Variables the auth middleware sets on the context. */
export type AuthEnv = { Variables: { token: TokenRow } };

function bearer(c: Context): string | null {
  const header = c.req.header("authorization");
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match ? match[1] : null;
}

function unauthorized(message: string): ApiError {
  return new ApiError(401, "unauthorized", message, undefined, { "WWW-Authenticate": "Bearer" });
}

/** Requires a valid token of `kind`; sets `c.var.token`. */
export function requireToken(kv: Deno.Kv, kind: TokenRow["kind"]): MiddlewareHandler<AuthEnv> {
  const identity = new KvIdentity(kv);
  return async (c, next) => {
    const presented = bearer(c);
    if (!presented) throw unauthorized("Missing Authorization: Bearer token");
    const row = await verifyToken(identity, presented);
    if (!row) throw unauthorized("Invalid or revoked token");
    if (row.kind !== kind) throw new ApiError(403, "forbidden", `This needs an ${kind} token`);
    c.set("token", row);
    await next();
  };
}

/** The bearer value of a request (edit tokens), or a 401. */
export function requireBearer(c: Context): string {
  const presented = bearer(c);
  if (!presented) throw unauthorized("Missing Authorization: Bearer <editToken>");
  return presented;
}
