/**
 * Deliveries over the owner API: a webhook's deliveries and the retry of its failed ones
 * (`/owner/webhooks/{webhookId}/deliveries`), one delivery with its attempts and its retry
 * (`/owner/deliveries/{deliveryId}`); their OpenAPI definitions, the views of deliveries and
 * attempts, and handlers.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { PersonEnv } from "../../auth/index.ts";
import { type Access, NEED } from "../../people/access.ts";
import { Invalid, NotFound } from "../../errors/index.ts";
import { CursorSchema, DeliveryIdSchema } from "../../http/ids.ts";
import { errors, forOwner, intQuery, jsonContent as json, pageOf } from "../../http/openapi.ts";
import {
  InvalidCursorError,
  type WebhookAttempt,
  type WebhookDelivery,
} from "../../store/ports/webhooks.ts";
import type { WebhookEngine } from "../engine.ts";
import { checkForm, ownWebhook, WebhookIdParam } from "./webhooks.ts";

const DeliveryIdParam = z.object({ deliveryId: DeliveryIdSchema });

/** A delivery as the owner API shows it. */
const DeliverySchema = z.object({
  id: z.string(),
  webhookId: z.string(),
  formId: z.string(),
  eventId: z.string(),
  recordId: z.string(),
  reason: z.enum(["insert", "update", "delete"]),
  savedAt: z.string(),
  status: z.enum(["pending", "delivered", "failed", "skipped"]),
  contentType: z.string(),
  bodyBytes: z.number().int(),
  attempts: z.number().int(),
  nextAttemptAt: z.string().nullable(),
  lastAttemptAt: z.string().nullable(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  lastSnippet: z.string().nullable().openapi({
    description: "At most 200 characters of the last response body, newlines collapsed",
  }),
  createdAt: z.string(),
  updatedAt: z.string(),
  completedAt: z.string().nullable(),
}).openapi("WebhookDelivery");

const AttemptSchema = z.object({
  n: z.number().int(),
  at: z.string(),
  status: z.number().int().nullable(),
  durationMs: z.number(),
  outcome: z.enum(["delivered", "transient", "permanent"]),
  error: z.string().nullable(),
  snippet: z.string().nullable(),
  retryAfterSeconds: z.number().nullable(),
}).openapi("WebhookAttempt");

/** Route definition: `listDeliveries`. */
const listDeliveries = createRoute(forOwner("webhooks", {
  method: "get",
  path: "/owner/webhooks/{webhookId}/deliveries",
  summary: "Deliveries of a webhook, newest first",
  request: {
    params: WebhookIdParam,
    query: z.object({
      failed: z.enum(["true", "false"]).optional().openapi({
        description: "Only the failed deliveries",
      }),
      cursor: CursorSchema.optional().openapi({
        description: "The nextCursor of the previous page",
      }),
      limit: intQuery(1, 500).default(50),
    }),
  },
  responses: {
    200: json(
      pageOf(DeliverySchema),
      "A page of deliveries",
    ),
    ...errors({ 400: "Bad cursor", 404: "Unknown webhook" }),
  },
}));

/** Route definition: `retryFailed`. */
const retryFailed = createRoute(forOwner("webhooks", {
  method: "post",
  path: "/owner/webhooks/{webhookId}/deliveries/retry",
  summary: "Retry every failed delivery of a webhook now; clears its failure flag",
  request: { params: WebhookIdParam },
  responses: {
    200: json(z.object({ retried: z.number().int() }), "How many deliveries were re-queued"),
    ...errors({ 404: "Unknown webhook" }),
  },
}));

/** Route definition: `getDelivery`. */
const getDelivery = createRoute(forOwner("webhooks", {
  method: "get",
  path: "/owner/deliveries/{deliveryId}",
  summary: "A delivery and its attempts",
  request: { params: DeliveryIdParam },
  responses: {
    200: json(
      z.object({ delivery: DeliverySchema, attempts: z.array(AttemptSchema) }),
      "The delivery, attempts first to last",
    ),
    ...errors({ 404: "Unknown delivery" }),
  },
}));

/** Route definition: `retryDelivery`. */
const retryDelivery = createRoute(forOwner("webhooks", {
  method: "post",
  path: "/owner/deliveries/{deliveryId}/retry",
  summary: "Retry one delivery now (a delivered one is sent again); clears the failure flag",
  request: { params: DeliveryIdParam },
  responses: {
    202: json(DeliverySchema, "Re-queued"),
    ...errors({
      404: "Unknown delivery",
      409: "A delete event (never sent), or being sent right now",
    }),
  },
}));

/** The owner API's view of a delivery. */
function deliveryView(row: WebhookDelivery): z.infer<typeof DeliverySchema> {
  return {
    id: row.id,
    webhookId: row.webhookId,
    formId: row.formId,
    eventId: row.eventId,
    recordId: row.recordId,
    reason: row.reason,
    savedAt: row.savedAt,
    status: row.status,
    contentType: row.contentType,
    bodyBytes: row.bodyBytes,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
    lastAttemptAt: row.lastAttemptAt,
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    lastSnippet: row.lastSnippet,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    completedAt: row.completedAt,
  };
}

/** The owner API's view of an attempt. */
function attemptView(row: WebhookAttempt): z.infer<typeof AttemptSchema> {
  return { ...row };
}

/**
 * Mounts the delivery routes on `app`, each behind `auth` (the owner API's rate limit and
 * token).
 *
 * @example
 * ```ts
 * mountDeliveries(app, engine, [rateLimit, requirePerson(ports)], access);
 * ```
 */
export function mountDeliveries(
  app: OpenAPIHono<PersonEnv>,
  engine: WebhookEngine,
  auth: MiddlewareHandler[],
  access: Access,
): void {
  const { webhooks: store, deliveries } = engine;
  const gate = (c: { var: PersonEnv["Variables"] }) => access.gate(c.var.person, NEED.webhooks);

  /** The delivery `deliveryId`, if the person may act on its webhook's form's database. */
  const ownDelivery = async (deliveryId: string, c: { var: PersonEnv["Variables"] }) => {
    const notFound = () => new NotFound("delivery_not_found", `Delivery "${deliveryId}" not found`);
    const stored = await deliveries.delivery(deliveryId);
    const config = stored && await store.config(stored.row.webhookId);
    if (!stored || !config) throw notFound();
    await checkForm(engine, gate(c), config.formId, notFound);
    return stored;
  };

  app.openapi({ ...listDeliveries, middleware: auth }, async (c) => {
    const row = await ownWebhook(engine, c.req.valid("param").webhookId, gate(c));
    const { failed, cursor, limit } = c.req.valid("query");
    const page = await deliveries.deliveries(row.id, { failed: failed === "true", cursor, limit })
      .catch((err) => {
        if (!(err instanceof InvalidCursorError)) throw err;
        throw new Invalid("invalid_request", "Invalid cursor: not a cursor of this list", "cursor");
      });
    return c.json({ items: page.items.map(deliveryView), nextCursor: page.nextCursor }, 200);
  });

  app.openapi({ ...retryFailed, middleware: auth }, async (c) => {
    const row = await ownWebhook(engine, c.req.valid("param").webhookId, gate(c));
    return c.json({ retried: await engine.retryFailed(row.id) }, 200);
  });

  app.openapi({ ...getDelivery, middleware: auth }, async (c) => {
    const { row } = await ownDelivery(c.req.valid("param").deliveryId, c);
    return c.json(
      {
        delivery: deliveryView(row),
        attempts: (await deliveries.attempts(row.id)).map(attemptView),
      },
      200,
    );
  });

  app.openapi({ ...retryDelivery, middleware: auth }, async (c) => {
    const { deliveryId } = c.req.valid("param");
    await engine.retry(await ownDelivery(deliveryId, c));
    const after = await deliveries.delivery(deliveryId);
    return c.json(deliveryView(after!.row), 202);
  });
}
