/**
 * A person's API tokens over HTTP (`/vault/tokens`): list one's own (never a secret), create
 * one (its string answered once), revoke one. An instance admin with the `admin` scope may
 * list and revoke anyone's with `?personId=`. The rules (scopes, expiry, `relay:queue`) are
 * src/people/tokens.ts's.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { type PersonEnv, requirePerson } from "../../auth/index.ts";
import { jsonBody } from "../../http/body.ts";
import { TokenIdSchema, UserIdSchema } from "../../http/ids.ts";
import {
  errors,
  forOwner,
  itemsOf,
  jsonContent as json,
  newRouter,
  requiredJson,
} from "../../http/openapi.ts";
import { type Scope, SCOPES } from "../../store/ports/person_tokens.ts";
import type { PersonTokenSource } from "../person_tokens.ts";
import { MAX_EXPIRY_DAYS, type PersonTokens, SCOPE_TEXT } from "../tokens.ts";

const ScopeSchema = z.enum(SCOPES as unknown as [Scope, ...Scope[]]).openapi({
  description: SCOPES.map((scope) => `${scope}: ${SCOPE_TEXT[scope]}`).join("; "),
});

/** A token as the API shows it: never its secret. */
const TokenSchema = z.object({
  id: z.string(),
  personId: z.string(),
  name: z.string(),
  scopes: z.array(ScopeSchema),
  createdAt: z.string(),
  expiresAt: z.string().nullable().openapi({ description: "Null: never" }),
  lastUsedAt: z.string().nullable().openapi({ description: "To the minute; null: never used" }),
}).openapi("PersonToken");

const CreateTokenSchema = z.object({
  name: z.string().min(1).max(100),
  scopes: z.array(ScopeSchema).min(1).max(SCOPES.length),
  expiresInDays: z.number().int().min(1).max(MAX_EXPIRY_DAYS).nullable().optional().openapi({
    description: "Absent or null: never expires (a relay:queue token never does)",
  }),
}).strict();

const CreatedSchema = TokenSchema.extend({
  token: z.string().openapi({ description: "The token, shown this once" }),
}).openapi("CreatedPersonToken");

const PersonQuery = z.object({
  personId: UserIdSchema.optional().openapi({
    description: "Another person's (an instance admin with the admin scope)",
  }),
});

const listTokens = createRoute(forOwner("tokens", {
  method: "get",
  path: "/vault/tokens",
  summary: "The person's API tokens, with their last use (never a secret)",
  request: { query: PersonQuery },
  responses: {
    200: json(itemsOf(TokenSchema), "Tokens, newest first"),
    ...errors({ 403: "Another person's, not as an instance admin", 404: "Unknown person" }),
  },
}));

const createToken = createRoute(forOwner("tokens", {
  method: "post",
  path: "/vault/tokens",
  summary: "Create an API token for oneself; the token is shown once",
  request: { body: requiredJson(CreateTokenSchema, "Name, scopes, expiry") },
  responses: {
    201: json(CreatedSchema, "Created"),
    ...errors({
      400: "Malformed",
      403: "A scope the person or the presented token may not give",
      409: "Too many tokens",
    }),
  },
}));

const revokeToken = createRoute(forOwner("tokens", {
  method: "delete",
  path: "/vault/tokens/{tokenId}",
  summary: "Revoke an API token at once",
  request: { params: z.object({ tokenId: TokenIdSchema }), query: PersonQuery },
  responses: {
    204: { description: "Revoked" },
    ...errors({ 403: "Another person's, not as an instance admin", 404: "Unknown token" }),
  },
}));

/**
 * The token routes, each behind a person's token. Mounted ahead of the vault's routes, whose
 * `/vault/*` authentication would otherwise run a second time.
 *
 * @example
 * ```ts
 * app.route("/", tokenRoutes(new PersonTokens(deps), personTokenSource));
 * ```
 */
export function tokenRoutes(
  tokens: PersonTokens,
  source: PersonTokenSource,
): OpenAPIHono<PersonEnv> {
  const app = newRouter<PersonEnv>();
  const auth = requirePerson(source);
  const body = jsonBody(() => 16 * 1024, {
    code: "payload_too_large",
    message: "Request body exceeds 16 KiB",
  });
  app.openapi({ ...listTokens, middleware: [auth] }, async (c) => {
    const { personId } = c.req.valid("query");
    return c.json({ items: await tokens.list(c.var.person, personId) }, 200);
  });
  app.openapi({ ...createToken, middleware: [auth, body] }, async (c) => {
    const { token, view } = await tokens.create(c.var.person, c.req.valid("json"));
    return c.json({ ...view, token }, 201);
  });
  app.openapi({ ...revokeToken, middleware: [auth] }, async (c) => {
    const { personId } = c.req.valid("query");
    await tokens.revoke(c.var.person, c.req.valid("param").tokenId, personId);
    return c.body(null, 204);
  });
  return app;
}
