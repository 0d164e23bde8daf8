/**
 * The owner API of webhooks, one module per resource: configurations (`webhooks.ts`) and
 * their deliveries (`deliveries.ts`). This module mounts them on one router, in the order the
 * OpenAPI document lists them.
 *
 * @module
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { type PersonEnv, requirePerson } from "../../auth/index.ts";
import type { AuditLog } from "../../audit/sink.ts";
import type { Access } from "../../people/access.ts";
import type { PersonTokenSource } from "../../people/person_tokens.ts";
import { newRouter } from "../../http/openapi.ts";
import type { WebhookEngine } from "../engine.ts";
import { mountDeliveries } from "./deliveries.ts";
import { mountWebhooks } from "./webhooks.ts";

/** What the webhook routes need. */
export interface WebhookRouteDeps {
  /** Where people's tokens are checked. */
  tokens: PersonTokenSource;
  /** Who may configure which form's webhooks (editors of its database). */
  access: Access;
  /** Where configuration changes and secret reveals are reported. */
  audit: AuditLog;
  engine: WebhookEngine;
  /** Rate limit of the owner API (shared with the relay's owner routes). */
  rateLimit: MiddlewareHandler;
}

/**
 * Mounts the webhook owner API on a new router.
 *
 * @example
 * ```ts
 * app.route("/", webhookRoutes({ tokens, access, audit, engine, rateLimit: ownerLimit }));
 * ```
 */
export function webhookRoutes(deps: WebhookRouteDeps): OpenAPIHono<PersonEnv> {
  const app = newRouter<PersonEnv>();
  const auth = [deps.rateLimit, requirePerson(deps.tokens)];
  mountWebhooks(app, deps.engine, auth, deps);
  mountDeliveries(app, deps.engine, auth, deps.access);
  return app;
}
