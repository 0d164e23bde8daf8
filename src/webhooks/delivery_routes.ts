/**
 * The OpenAPI definitions of the owner API's delivery routes (list, show with attempts, retry
 * one, retry all failed) and the views of deliveries and attempts; mounted by `routes.ts`.
 *
 * @module
 */
import { errorContent as error, intQuery, jsonContent as json } from "../http/openapi.ts";
import { createRoute, z } from "@hono/zod-openapi";
import { CursorSchema, DeliveryIdSchema, WebhookIdSchema } from "../http/ids.ts";
import type { WebhookAttempt, WebhookDelivery } from "../store/ports/webhooks.ts";

const security = [{ ownerToken: [] }];
const tags = ["webhooks"];

/** The `webhookId` path parameter. */
export const WebhookIdParam = z.object({ webhookId: WebhookIdSchema });
const DeliveryIdParam = z.object({ deliveryId: DeliveryIdSchema });

/** A delivery as the owner API shows it. */
export const DeliverySchema = z.object({
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
export const listDeliveries = createRoute({
  method: "get",
  path: "/owner/webhooks/{webhookId}/deliveries",
  tags,
  summary: "Deliveries of a webhook, newest first",
  security,
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
      z.object({ items: z.array(DeliverySchema), nextCursor: z.string().nullable() }),
      "A page of deliveries",
    ),
    400: error("Bad cursor"),
    401: error("No owner token"),
    404: error("Unknown webhook"),
  },
});

/** Route definition: `retryFailed`. */
export const retryFailed = createRoute({
  method: "post",
  path: "/owner/webhooks/{webhookId}/deliveries/retry",
  tags,
  summary: "Retry every failed delivery of a webhook now; clears its failure flag",
  security,
  request: { params: WebhookIdParam },
  responses: {
    200: json(z.object({ retried: z.number().int() }), "How many deliveries were re-queued"),
    401: error("No owner token"),
    404: error("Unknown webhook"),
  },
});

/** Route definition: `getDelivery`. */
export const getDelivery = createRoute({
  method: "get",
  path: "/owner/deliveries/{deliveryId}",
  tags,
  summary: "A delivery and its attempts",
  security,
  request: { params: DeliveryIdParam },
  responses: {
    200: json(
      z.object({ delivery: DeliverySchema, attempts: z.array(AttemptSchema) }),
      "The delivery, attempts first to last",
    ),
    401: error("No owner token"),
    404: error("Unknown delivery"),
  },
});

/** Route definition: `retryDelivery`. */
export const retryDelivery = createRoute({
  method: "post",
  path: "/owner/deliveries/{deliveryId}/retry",
  tags,
  summary: "Retry one delivery now (a delivered one is sent again); clears the failure flag",
  security,
  request: { params: DeliveryIdParam },
  responses: {
    202: json(DeliverySchema, "Re-queued"),
    401: error("No owner token"),
    404: error("Unknown delivery"),
    409: error("A delete event (never sent), or being sent right now"),
  },
});

/** The owner API's view of a delivery. */
export function deliveryView(row: WebhookDelivery): z.infer<typeof DeliverySchema> {
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
export function attemptView(row: WebhookAttempt): z.infer<typeof AttemptSchema> {
  return { ...row };
}
