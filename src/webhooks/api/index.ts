/**
 * The owner API of webhooks, one module per resource: configurations (`webhooks.ts`) and
 * their deliveries (`deliveries.ts`). This module mounts them on one router, in the order the
 * OpenAPI document lists them.
 *
 * @module
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { type OwnerEnv, requireOwner, type TokenSource } from "../../auth/index.ts";
import { newRouter } from "../../http/openapi.ts";
import type { WebhookEngine } from "../engine.ts";
import { mountDeliveries } from "./deliveries.ts";
import { mountWebhooks } from "./webhooks.ts";

/** What the webhook routes need. */
export interface WebhookRouteDeps {
  /** Where owner tokens are checked. */
  identity: TokenSource;
  engine: WebhookEngine;
  /** Rate limit of the owner API (shared with the relay's owner routes). */
  rateLimit: MiddlewareHandler;
}

/**
 * Mounts the webhook owner API on a new router.
 *
 * @example
 * ```ts
 * app.route("/", webhookRoutes({ identity, engine, rateLimit: ownerLimit }));
 * ```
 */
export function webhookRoutes(deps: WebhookRouteDeps): OpenAPIHono<OwnerEnv> {
  const app = newRouter<OwnerEnv>();
  const auth = [deps.rateLimit, requireOwner(deps.identity)];
  mountWebhooks(app, deps.engine, auth);
  mountDeliveries(app, deps.engine, auth);
  return app;
}
