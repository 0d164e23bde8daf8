/**
 * The owner API of webhooks: configurations per form (secrets never shown back in full),
 * deliveries and their attempts, retries, and a test send. Owner token required; only the
 * form's owner sees or touches its webhooks.
 *
 * @module
 */
import { errorContent as error, jsonContent as json, newRouter } from "../http/openapi.ts";
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { cacheBodyText, jsonBody } from "../http/body.ts";
import { Invalid, NotFound } from "../errors/index.ts";
import { FormIdSchema } from "../http/ids.ts";
import { assertOwns, type OwnerEnv, requireOwner, type TokenSource } from "../auth/index.ts";
import { InvalidCursorError, type WebhookConfig } from "../store/ports/webhooks.ts";
import {
  newConfig,
  patchConfig,
  WebhookCreateSchema,
  WebhookPatchSchema,
  webhookView,
  WebhookViewSchema,
} from "./config.ts";
import { createConfig, updateConfig } from "./config_writes.ts";
import {
  attemptView,
  deliveryView,
  getDelivery,
  listDeliveries,
  retryDelivery,
  retryFailed,
  WebhookIdParam,
} from "./delivery_routes.ts";
import type { WebhookEngine } from "./engine.ts";

/** What the webhook routes need. */
export interface WebhookRouteDeps {
  /** Where owner tokens are checked. */
  identity: TokenSource;
  engine: WebhookEngine;
  /** Rate limit of the owner API (shared with the relay's owner routes). */
  rateLimit: MiddlewareHandler;
}

const security = [{ ownerToken: [] }];
const tags = ["webhooks"];

const FormIdParam = z.object({ formId: FormIdSchema });

const CreatedSchema = WebhookViewSchema.extend({
  generatedSigningSecret: z.string().optional().openapi({
    description: "The generated signing secret, shown this once",
  }),
}).openapi("WebhookWithSecret");

const TestResultSchema = z.object({
  contentType: z.string(),
  body: z.string().openapi({ description: "The body that was sent" }),
  status: z.number().int().nullable(),
  durationMs: z.number(),
  outcome: z.enum(["delivered", "transient", "permanent"]),
  error: z.string().nullable(),
  snippet: z.string().nullable(),
}).openapi("WebhookTestResult");

const listWebhooks = createRoute({
  method: "get",
  path: "/owner/forms/{formId}/webhooks",
  tags,
  summary: "The webhook configurations of a form",
  security,
  request: { params: FormIdParam },
  responses: {
    200: json(z.object({ items: z.array(WebhookViewSchema) }), "Configurations, oldest first"),
    401: error("No owner token"),
    404: error("Unknown form, or another user's (the same answer)"),
  },
});

const createWebhook = createRoute({
  method: "post",
  path: "/owner/forms/{formId}/webhooks",
  tags,
  summary: "Add a webhook configuration to a form",
  security,
  request: {
    params: FormIdParam,
    body: { ...json(WebhookCreateSchema, "The configuration"), required: true },
  },
  responses: {
    201: json(CreatedSchema, "Created"),
    400: error("Invalid configuration"),
    413: error("webhook_too_large: the configuration over 64 KiB"),
    401: error("No owner token"),
    404: error("Unknown form, or another user's (the same answer)"),
  },
});

const getWebhook = createRoute({
  method: "get",
  path: "/owner/webhooks/{webhookId}",
  tags,
  summary: "A webhook configuration (secrets masked)",
  security,
  request: { params: WebhookIdParam },
  responses: {
    200: json(WebhookViewSchema, "The configuration"),
    401: error("No owner token"),
    404: error("Unknown webhook"),
  },
});

const patchWebhook = createRoute({
  method: "patch",
  path: "/owner/webhooks/{webhookId}",
  tags,
  summary: "Edit a webhook configuration; clears its failure flag",
  security,
  request: {
    params: WebhookIdParam,
    body: { ...json(WebhookPatchSchema, "What changes"), required: true },
  },
  responses: {
    200: json(CreatedSchema, "The edited configuration"),
    400: error("Invalid configuration"),
    413: error("webhook_too_large: the configuration over 64 KiB"),
    401: error("No owner token"),
    404: error("Unknown webhook"),
    409: error("Edited meanwhile"),
  },
});

const deleteWebhook = createRoute({
  method: "delete",
  path: "/owner/webhooks/{webhookId}",
  tags,
  summary: "Remove a webhook configuration and its deliveries",
  security,
  request: { params: WebhookIdParam },
  responses: {
    204: { description: "Removed" },
    401: error("No owner token"),
    404: error("Unknown webhook"),
  },
});

const testWebhook = createRoute({
  method: "post",
  path: "/owner/webhooks/{webhookId}/test",
  tags,
  summary: "Send one request now with a sample record (or the values given)",
  description: "Nothing is stored or retried. The body is rendered from a sample record " +
    "(`_recordId` starting with `test_`) unless `values` are given.",
  security,
  request: {
    params: WebhookIdParam,
    body: {
      ...json(
        z.strictObject({ values: z.record(z.string(), z.unknown()).optional() }),
        "Optional field values",
      ),
      required: false,
    },
  },
  responses: {
    200: json(TestResultSchema, "What the receiver answered"),
    400: error("Malformed values"),
    401: error("No owner token"),
    404: error("Unknown webhook"),
  },
});

/** Mounts the webhook owner API on a new router. */
export function webhookRoutes(deps: WebhookRouteDeps): OpenAPIHono<OwnerEnv> {
  const { engine } = deps;
  const { webhooks: store, deliveries, forms } = engine;
  const app = newRouter<OwnerEnv>();
  const auth = [deps.rateLimit, requireOwner(deps.identity)];
  const body = jsonBody(() => 512 * 1024, {
    code: "payload_too_large",
    message: "Request body exceeds 512 KiB",
  });

  /** Form `formId` must exist and be the user's; another user's is not found either. */
  const ownForm = async (formId: string, userId: string) => {
    assertOwns(
      userId,
      await forms.ownerOf(formId),
      () => new NotFound("form_not_found", `Form "${formId}" not found`),
    );
  };
  /** The user's webhook `webhookId` (another user's is not found). */
  const ownWebhook = async (webhookId: string, userId: string): Promise<WebhookConfig> => {
    const notFound = () => new NotFound("webhook_not_found", `Webhook "${webhookId}" not found`);
    const row = await store.config(webhookId);
    if (!row) throw notFound();
    assertOwns(userId, await forms.ownerOf(row.formId), notFound);
    return row;
  };
  /** The user's delivery `deliveryId`. */
  const ownDelivery = async (deliveryId: string, userId: string) => {
    const notFound = () => new NotFound("delivery_not_found", `Delivery "${deliveryId}" not found`);
    const stored = await deliveries.delivery(deliveryId);
    const config = stored && await store.config(stored.row.webhookId);
    if (!stored || !config) throw notFound();
    assertOwns(userId, await forms.ownerOf(config.formId), notFound);
    return stored;
  };

  app.openapi({ ...listWebhooks, middleware: auth }, async (c) => {
    const { formId } = c.req.valid("param");
    await ownForm(formId, c.var.owner.userId);
    const rows = await store.configsOf(formId);
    const flags = await store.flags(rows.map((r) => r.id));
    return c.json({ items: rows.map((r) => webhookView(r, flags.get(r.id) ?? null)) }, 200);
  });

  app.openapi({ ...createWebhook, middleware: [...auth, body] }, async (c) => {
    const { formId } = c.req.valid("param");
    await ownForm(formId, c.var.owner.userId);
    const { row, secret } = newConfig(formId, c.req.valid("json"));
    await createConfig(store, row);
    return c.json({
      ...webhookView(row, null),
      ...(secret ? { generatedSigningSecret: secret } : {}),
    }, 201);
  });

  app.openapi({ ...getWebhook, middleware: auth }, async (c) => {
    const row = await ownWebhook(c.req.valid("param").webhookId, c.var.owner.userId);
    return c.json(webhookView(row, await store.flag(row.id)), 200);
  });

  app.openapi({ ...patchWebhook, middleware: [...auth, body] }, async (c) => {
    const before = await ownWebhook(c.req.valid("param").webhookId, c.var.owner.userId);
    const { row, secret } = patchConfig(before, c.req.valid("json"));
    await updateConfig(store, before, row);
    return c.json({
      ...webhookView(row, null),
      ...(secret ? { generatedSigningSecret: secret } : {}),
    }, 200);
  });

  app.openapi({ ...deleteWebhook, middleware: auth }, async (c) => {
    const row = await ownWebhook(c.req.valid("param").webhookId, c.var.owner.userId);
    await store.removeConfig(row);
    return c.body(null, 204);
  });

  /** The test send's body is optional: no body means a sample record. */
  const optionalBody: MiddlewareHandler = (c, next) => {
    const empty = !c.req.header("content-type") && (c.req.header("content-length") ?? "0") === "0";
    if (!empty) return body(c, next);
    cacheBodyText(c, "{}");
    return next();
  };

  app.openapi({ ...testWebhook, middleware: [...auth, optionalBody] }, async (c) => {
    const row = await ownWebhook(c.req.valid("param").webhookId, c.var.owner.userId);
    const input = c.req.valid("json");
    const { contentType, body, result } = await engine.testSend(row, input?.values);
    return c.json({
      contentType,
      body,
      status: result.status,
      durationMs: result.durationMs,
      outcome: result.outcome,
      error: result.error,
      snippet: result.snippet,
    }, 200);
  });

  app.openapi({ ...listDeliveries, middleware: auth }, async (c) => {
    const row = await ownWebhook(c.req.valid("param").webhookId, c.var.owner.userId);
    const { failed, cursor, limit } = c.req.valid("query");
    const page = await deliveries.deliveries(row.id, { failed: failed === "true", cursor, limit })
      .catch((err) => {
        if (!(err instanceof InvalidCursorError)) throw err;
        throw new Invalid("invalid_request", "Invalid cursor: not a cursor of this list", "cursor");
      });
    return c.json({ items: page.items.map(deliveryView), nextCursor: page.nextCursor }, 200);
  });

  app.openapi({ ...retryFailed, middleware: auth }, async (c) => {
    const row = await ownWebhook(c.req.valid("param").webhookId, c.var.owner.userId);
    return c.json({ retried: await engine.retryFailed(row.id) }, 200);
  });

  app.openapi({ ...getDelivery, middleware: auth }, async (c) => {
    const { row } = await ownDelivery(c.req.valid("param").deliveryId, c.var.owner.userId);
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
    await engine.retry(await ownDelivery(deliveryId, c.var.owner.userId));
    const after = await deliveries.delivery(deliveryId);
    return c.json(deliveryView(after!.row), 202);
  });

  return app;
}
