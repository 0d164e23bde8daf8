/**
 * Webhook configurations over the owner API: list and add per form (`/owner/forms/{formId}/
 * webhooks`), show, edit, remove and test-send one (`/owner/webhooks/{webhookId}`); their
 * OpenAPI definitions, schemas (the view with every secret masked) and handlers. Owner token
 * required; only the form's owner sees or touches its webhooks.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { PersonEnv } from "../../auth/index.ts";
import { actionBy, type AuditLog } from "../../audit/sink.ts";
import { type Access, type Gate, NEED } from "../../people/access.ts";
import { NotFound } from "../../errors/index.ts";
import { cacheBodyText, jsonBody } from "../../http/body.ts";
import { FormIdSchema, WebhookIdSchema } from "../../http/ids.ts";
import {
  errors,
  forOwner,
  itemsOf,
  jsonContent as json,
  requiredJson,
} from "../../http/openapi.ts";
import type { WebhookConfig, WebhookFlag } from "../../store/ports/webhooks.ts";
import {
  maskSecret,
  newConfig,
  patchConfig,
  WebhookCreateSchema,
  WebhookPatchSchema,
} from "../config.ts";
import { createConfig, updateConfig } from "../config_writes.ts";
import type { WebhookEngine } from "../engine.ts";

/** A configuration as the owner API shows it. */
export const WebhookViewSchema = z.object({
  id: z.string(),
  formId: z.string(),
  name: z.string(),
  url: z.string(),
  method: z.enum(["POST", "PUT", "PATCH"]),
  mode: z.enum(["default", "json_template", "xml_template", "form"]),
  template: z.string().nullable(),
  bearer: z.string().nullable().openapi({ description: "Masked" }),
  headers: z.array(z.string()).openapi({ description: "`Key: Value`, values masked" }),
  signingSecret: z.string().nullable().openapi({ description: "Masked" }),
  signatureHeader: z.string(),
  mappings: z.record(z.string(), z.string()),
  events: z.array(z.enum(["create", "update", "delete"])),
  standardWebhooks: z.boolean(),
  concurrency: z.number().nullable().openapi({
    description: "Requests in flight at once to this configuration; null: the instance's " +
      "`webhooks.concurrency_per_webhook`",
  }),
  flagged: z.object({
    at: z.string(),
    deliveryId: z.string().nullable().openapi({ description: "Null when blocked" }),
    eventId: z.string().optional().openapi({ description: "When blocked: the waiting event" }),
    reason: z.enum(["permanent", "exhausted", "blocked"]).openapi({
      description: "permanent: a 4xx or a refused address; exhausted: the retry schedule ran " +
        "out; blocked: events wait because their file URLs could not be made (cleared once " +
        "they go through)",
    }),
    status: z.number().nullable(),
    error: z.string().nullable(),
  }).nullable().openapi({ description: "Set by a failed delivery until edited or retried" }),
  createdAt: z.string(),
  updatedAt: z.string(),
}).openapi("Webhook");

/** The API view of a configuration. */
export type WebhookView = z.infer<typeof WebhookViewSchema>;

/** Shows `row` with every secret masked (bearer, signing secret, custom header values). */
export function webhookView(row: WebhookConfig, flag: WebhookFlag | null): WebhookView {
  return {
    id: row.id,
    formId: row.formId,
    name: row.name,
    url: row.url,
    method: row.method,
    mode: row.mode,
    template: row.template,
    bearer: row.bearer === null ? null : maskSecret(row.bearer),
    headers: row.headers.map(([name, value]) => `${name}: ${maskSecret(value)}`),
    signingSecret: row.signingSecret === null ? null : maskSecret(row.signingSecret),
    signatureHeader: row.signatureHeader,
    mappings: row.mappings,
    events: row.events,
    standardWebhooks: row.standardWebhooks,
    concurrency: row.concurrency,
    flagged: flag,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The `webhookId` path parameter. */
export const WebhookIdParam = z.object({ webhookId: WebhookIdSchema });
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

/** How a configuration is refused, in adding and in editing one. */
const CONFIG_ERRORS = {
  400: "Invalid configuration",
  413: "webhook_too_large: the configuration over 64 KiB",
} as const;

const listWebhooks = createRoute(forOwner("webhooks", {
  method: "get",
  path: "/owner/forms/{formId}/webhooks",
  summary: "The webhook configurations of a form",
  request: { params: FormIdParam },
  responses: {
    200: json(itemsOf(WebhookViewSchema), "Configurations, oldest first"),
    ...errors({ 404: "Unknown form, or another user's (the same answer)" }),
  },
}));

const createWebhook = createRoute(forOwner("webhooks", {
  method: "post",
  path: "/owner/forms/{formId}/webhooks",
  summary: "Add a webhook configuration to a form",
  request: {
    params: FormIdParam,
    body: requiredJson(WebhookCreateSchema, "The configuration"),
  },
  responses: {
    201: json(CreatedSchema, "Created"),
    ...errors({
      ...CONFIG_ERRORS,
      404: "Unknown form, or another user's (the same answer)",
    }),
  },
}));

const getWebhook = createRoute(forOwner("webhooks", {
  method: "get",
  path: "/owner/webhooks/{webhookId}",
  summary: "A webhook configuration (secrets masked)",
  request: { params: WebhookIdParam },
  responses: {
    200: json(WebhookViewSchema, "The configuration"),
    ...errors({ 404: "Unknown webhook" }),
  },
}));

const patchWebhook = createRoute(forOwner("webhooks", {
  method: "patch",
  path: "/owner/webhooks/{webhookId}",
  summary: "Edit a webhook configuration; clears its failure flag",
  request: {
    params: WebhookIdParam,
    body: requiredJson(WebhookPatchSchema, "What changes"),
  },
  responses: {
    200: json(CreatedSchema, "The edited configuration"),
    ...errors({
      ...CONFIG_ERRORS,
      404: "Unknown webhook",
      409: "Edited meanwhile",
    }),
  },
}));

const deleteWebhook = createRoute(forOwner("webhooks", {
  method: "delete",
  path: "/owner/webhooks/{webhookId}",
  summary: "Remove a webhook configuration and its deliveries",
  request: { params: WebhookIdParam },
  responses: {
    204: { description: "Removed" },
    ...errors({ 404: "Unknown webhook" }),
  },
}));

const testWebhook = createRoute(forOwner("webhooks", {
  method: "post",
  path: "/owner/webhooks/{webhookId}/test",
  summary: "Send one request now with a sample record (or the values given)",
  description: "Nothing is stored or retried. The body is rendered from a sample record " +
    "(`_recordId` starting with `test_`) unless `values` are given.",
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
    ...errors({ 400: "Malformed values", 404: "Unknown webhook" }),
  },
}));

/**
 * Passes when `gate` lets its principal act on the database of form `formId`; else the
 * resource's `notFound()` (a form of a database the person is no member of is not found either).
 *
 * @example
 * ```ts
 * await checkForm(engine, gate, formId, () => new NotFound("form_not_found", "…"));
 * ```
 */
export async function checkForm(
  engine: WebhookEngine,
  gate: Gate,
  formId: string,
  notFound: () => NotFound,
): Promise<string> {
  const databaseId = await engine.forms.databaseOf(formId);
  if (databaseId === null) throw notFound();
  await gate.check(databaseId, notFound);
  return databaseId;
}

/**
 * The webhook `webhookId` if `gate` lets its principal act on its form's database; else not
 * found (no existence oracle).
 *
 * @example
 * ```ts
 * const row = await ownWebhook(engine, webhookId, access.gate(person, NEED.webhooks));
 * ```
 */
export async function ownWebhook(
  engine: WebhookEngine,
  webhookId: string,
  gate: Gate,
): Promise<WebhookConfig & { databaseId: string }> {
  const notFound = () => new NotFound("webhook_not_found", `Webhook "${webhookId}" not found`);
  const row = await engine.webhooks.config(webhookId);
  if (!row) throw notFound();
  return { ...row, databaseId: await checkForm(engine, gate, row.formId, notFound) };
}

/** A configuration just written, as the API shows it: a generated signing secret shown once. */
function writtenView(row: WebhookConfig, secret: string | null) {
  return { ...webhookView(row, null), ...(secret ? { generatedSigningSecret: secret } : {}) };
}

/**
 * Mounts the configuration routes on `app`, each behind `auth` (the owner API's rate limit
 * and token).
 *
 * @example
 * ```ts
 * mountWebhooks(app, engine, [rateLimit, requirePerson(ports)], { access, audit });
 * ```
 */
export function mountWebhooks(
  app: OpenAPIHono<PersonEnv>,
  engine: WebhookEngine,
  auth: MiddlewareHandler[],
  { access, audit }: { access: Access; audit: AuditLog },
): void {
  const { webhooks: store } = engine;
  const body = jsonBody(() => 512 * 1024, {
    code: "payload_too_large",
    message: "Request body exceeds 512 KiB",
  });

  const gate = (c: { var: PersonEnv["Variables"] }) => access.gate(c.var.person, NEED.webhooks);
  /** Form `formId` must exist and the person may configure its webhooks. */
  const ownForm = (formId: string, c: { var: PersonEnv["Variables"] }) =>
    checkForm(
      engine,
      gate(c),
      formId,
      () => new NotFound("form_not_found", `Form "${formId}" not found`),
    );
  /** Reports `action` on webhook `row`. */
  const report = (
    c: { var: PersonEnv["Variables"] },
    action: "webhook_created" | "webhook_updated" | "webhook_deleted" | "webhook_secret_revealed",
    row: WebhookConfig,
    databaseId: string,
  ) =>
    audit.record(actionBy(c.var.person, action, {
      databaseId,
      target: { kind: "webhook", id: row.id },
    }));

  app.openapi({ ...listWebhooks, middleware: auth }, async (c) => {
    const { formId } = c.req.valid("param");
    await ownForm(formId, c);
    const rows = await store.configsOf(formId);
    const flags = await store.flags(rows.map((r) => r.id));
    return c.json({ items: rows.map((r) => webhookView(r, flags.get(r.id) ?? null)) }, 200);
  });

  app.openapi({ ...createWebhook, middleware: [...auth, body] }, async (c) => {
    const { formId } = c.req.valid("param");
    const databaseId = await ownForm(formId, c);
    const { row, secret } = newConfig(formId, c.req.valid("json"));
    await createConfig(store, row);
    report(c, "webhook_created", row, databaseId);
    if (secret) report(c, "webhook_secret_revealed", row, databaseId);
    return c.json(writtenView(row, secret), 201);
  });

  app.openapi({ ...getWebhook, middleware: auth }, async (c) => {
    const { databaseId: _, ...row } = await ownWebhook(
      engine,
      c.req.valid("param").webhookId,
      gate(c),
    );
    return c.json(webhookView(row, await store.flag(row.id)), 200);
  });

  app.openapi({ ...patchWebhook, middleware: [...auth, body] }, async (c) => {
    const { databaseId, ...before } = await ownWebhook(
      engine,
      c.req.valid("param").webhookId,
      gate(c),
    );
    const { row, secret } = patchConfig(before, c.req.valid("json"));
    await updateConfig(store, before, row);
    report(c, "webhook_updated", row, databaseId);
    if (secret) report(c, "webhook_secret_revealed", row, databaseId);
    return c.json(writtenView(row, secret), 200);
  });

  app.openapi({ ...deleteWebhook, middleware: auth }, async (c) => {
    const { databaseId, ...row } = await ownWebhook(
      engine,
      c.req.valid("param").webhookId,
      gate(c),
    );
    await store.removeConfig(row);
    report(c, "webhook_deleted", row, databaseId);
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
    const { databaseId: _, ...row } = await ownWebhook(
      engine,
      c.req.valid("param").webhookId,
      gate(c),
    );
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
}
