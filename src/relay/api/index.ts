/**
 * The relay's HTTP surface, one module per resource: intake (`submissions.ts`), published
 * forms (`manifests.ts`), the identity registry (`identity.ts`) and the owner's queues
 * (`queues.ts`); CORS of the sender routes is `cors.ts`. This module mounts them on one
 * router, in the order the OpenAPI document lists them.
 *
 * @module
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AuthEnv } from "../../auth/index.ts";
import type { Config } from "../../config/index.ts";
import { newRouter } from "../../http/openapi.ts";
import type { Limiter } from "../../http/rate_limit.ts";
import type { EnvelopePort } from "../../store/ports/envelopes.ts";
import type { IdentityPort } from "../../store/ports/identity.ts";
import type { FormDirectory } from "../manifests.ts";
import type { Intake } from "../submissions.ts";
import { relayGuards } from "./_guards.ts";
import { mountIdentity } from "./identity.ts";
import { mountManifests } from "./manifests.ts";
import { mountQueues } from "./queues.ts";
import { mountSubmissions } from "./submissions.ts";

export { senderCors } from "./cors.ts";

/** What the relay routes need. */
export interface RelayDeps {
  identity: IdentityPort;
  envelopes: EnvelopePort;
  config: Config;
  intake: Intake;
  forms: FormDirectory;
  limiters: {
    submissions: Limiter | null;
    owner: Limiter | null;
  };
}

/**
 * Mounts the relay's routes on a new router.
 *
 * @example
 * ```ts
 * app.route("/", relayRoutes({ identity, envelopes, config, intake, forms, limiters }));
 * ```
 */
export function relayRoutes(deps: RelayDeps): OpenAPIHono<AuthEnv> {
  const { config, intake, forms, identity, envelopes } = deps;
  const app = newRouter<AuthEnv>();
  const guards = relayGuards(config, identity, deps.limiters.owner);

  app.openAPIRegistry.registerComponent("securitySchemes", "ownerToken", {
    type: "http",
    scheme: "bearer",
    description: "Owner token (spo_…)",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", {
    type: "http",
    scheme: "bearer",
    description: "Admin token (spa_…)",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "editToken", {
    type: "http",
    scheme: "bearer",
    description: "The editToken a submission's POST answered",
  });

  mountSubmissions(app, { config, intake, forms, limiter: deps.limiters.submissions }, guards);
  mountManifests(app, { config, forms }, guards);
  mountIdentity(app, { config, identity }, guards);
  mountQueues(app, { identity, envelopes }, guards);
  return app;
}
