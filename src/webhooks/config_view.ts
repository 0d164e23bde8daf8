/**
 * A webhook configuration as the owner API shows it: every secret masked.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import type { WebhookConfig, WebhookFlag } from "../store/ports/webhooks.ts";

/**
 * A secret as the API shows it: never in full; the last 4 characters of long ones only.
 *
 * @example
 * ```ts
 * maskSecret("whsec_abcdefghijklmnopqrstuvwxyz"); // "****wxyz"
 * ```
 */
export function maskSecret(secret: string): string {
  return secret.length >= 20 ? `****${secret.slice(-4)}` : "****";
}

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
