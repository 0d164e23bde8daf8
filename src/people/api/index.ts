/**
 * The people API under `/vault` (roles vault and all): the instance's people (`people.ts`) and
 * each database's members and invitations (`members.ts`). Every route needs a person's token;
 * what the person may do is their role and the token's scopes (src/people/access.ts).
 *
 * @module
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { type PersonEnv, requirePerson } from "../../auth/index.ts";
import { jsonBody } from "../../http/body.ts";
import { newRouter } from "../../http/openapi.ts";
import type { PersonTokenSource } from "../person_tokens.ts";
import type { PeopleServices } from "../index.ts";
import { addMemberRoutes } from "./members.ts";
import { addPeopleRoutes } from "./people.ts";

/** What the people API needs. */
export interface PeopleRoutesDeps {
  services: PeopleServices;
  tokens: PersonTokenSource;
  /** The public base URL of the console (one-time links point there). */
  baseUrl: () => string;
}

/**
 * Mounts the people API on a new router.
 *
 * @example
 * ```ts
 * app.route("/", peopleRoutes({ services: peopleServices(vault), tokens, baseUrl }));
 * ```
 */
export function peopleRoutes(deps: PeopleRoutesDeps): OpenAPIHono<PersonEnv> {
  const app = newRouter<PersonEnv>();
  const body = jsonBody(() => 64 * 1024, {
    code: "payload_too_large",
    message: "Request body exceeds 64 KiB",
  });
  // The person is authenticated once per request: the vault's router may have done it.
  const auth = requirePerson(deps.tokens);
  const person: MiddlewareHandler<PersonEnv> = (c, next) =>
    c.get("person") ? next() : auth(c, next);
  for (
    const path of [
      "/vault/people",
      "/vault/databases/:dbId/members",
      "/vault/databases/:dbId/members/*",
    ]
  ) {
    app.use(path, person);
  }
  const api = { app, services: deps.services, baseUrl: deps.baseUrl, body: [body] };
  addPeopleRoutes(api);
  addMemberRoutes(api);
  return app;
}
