/**
 * The webhook configuration model: request schemas, the checks across fields, and how a
 * secret is shown (masked); the view the owner API shows is in `api/webhooks.ts`.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { MAX_WEBHOOK_CONCURRENCY } from "../config/index.ts";
import { Invalid } from "../errors/index.ts";
import type { WebhookConfig } from "../store/ports/webhooks.ts";
import { renderJsonTemplate } from "./render/json_template.ts";
import type { RenderInput } from "./values.ts";

/** The signature header's default name. */
export const DEFAULT_SIGNATURE_HEADER = "X-Service-Signature";

/** Largest template, in characters. */
export const MAX_TEMPLATE_CHARS = 64 * 1024;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7E\x80-\xFF]*$/;
const VISIBLE = /^[\x21-\x7E]+$/;
const CONTROL = /\p{Cc}/u;
const FIELD_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const STANDARD_SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/** Header names a configuration may not set: the transport owns them. */
const RESERVED_HEADERS = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "expect",
  "proxy-authorization",
  "proxy-connection",
]);

/** Headers the Standard Webhooks option writes. */
const STANDARD_HEADERS = new Set(["webhook-id", "webhook-timestamp", "webhook-signature"]);

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

/**
 * Parses a custom header line `Key: Value`, or returns why it is not one.
 *
 * @example
 * ```ts
 * parseHeaderLine("X-Env: prod"); // ["X-Env", "prod"]
 * ```
 */
export function parseHeaderLine(line: string): [string, string] | string {
  const colon = line.indexOf(":");
  if (colon <= 0) return `Header line "${line}" is not "Key: Value"`;
  const name = line.slice(0, colon).trim();
  const value = line.slice(colon + 1).trim();
  if (!TOKEN.test(name)) return `Header name "${name}" is not a valid HTTP header name`;
  if (RESERVED_HEADERS.has(name.toLowerCase())) {
    return `Header "${name}" is set by the transport and cannot be configured`;
  }
  if (!HEADER_VALUE.test(value)) return `Header "${name}" has a value with control characters`;
  return [name, value];
}

const UrlSchema = z.string().max(2048).superRefine((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: "custom", message: `"${value}" is not an absolute URL` });
    return;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    ctx.addIssue({ code: "custom", message: `"${url.protocol}" URLs are not supported` });
  } else if (url.username || url.password) {
    ctx.addIssue({
      code: "custom",
      message: "The URL must not carry credentials; use the bearer or a custom header",
    });
  }
}).openapi({ example: "https://example.com/hooks/sealpost" });

const HeaderLinesSchema = z.array(z.string().max(8192)).max(50).superRefine((lines, ctx) => {
  lines.forEach((line, index) => {
    const parsed = parseHeaderLine(line);
    if (typeof parsed === "string") {
      ctx.addIssue({ code: "custom", message: parsed, path: [index] });
    }
  });
}).openapi({ description: "Custom headers, `Key: Value` lines", example: ["X-Env: prod"] });

const SecretSchema = z.string().min(16).max(512).regex(VISIBLE, {
  message: "Must be visible ASCII characters without spaces",
});

const MappingsSchema = z.record(
  z.string(),
  z.string().min(1).max(200).refine((t) => !CONTROL.test(t), "Must not hold control characters"),
).superRefine((mappings, ctx) => {
  const targets = new Map<string, string>();
  for (const [field, target] of Object.entries(mappings)) {
    if (!FIELD_ID.test(field)) {
      ctx.addIssue({ code: "custom", message: `"${field}" is not a field id`, path: [field] });
    }
    const other = targets.get(target);
    if (other !== undefined) {
      ctx.addIssue({
        code: "custom",
        message: `Fields "${other}" and "${field}" both map to "${target}"`,
        path: [field],
      });
    }
    targets.set(target, field);
  }
}).refine((m) => Object.keys(m).length <= 1000, "At most 1000 mappings")
  .openapi({ description: "Record field id → target key; empty: every field under its id" });

const EventsSchema = z.array(z.enum(["create", "update", "delete"])).max(3)
  .refine((e) => new Set(e).size === e.length, "Each event at most once");

const fields = {
  name: z.string().max(200),
  url: UrlSchema,
  method: z.enum(["POST", "PUT", "PATCH"]),
  mode: z.enum(["default", "json_template", "xml_template", "form"]),
  template: z.string().min(1).max(MAX_TEMPLATE_CHARS).nullable(),
  bearer: z.string().max(4096).regex(VISIBLE, { message: "Must be visible ASCII, no spaces" })
    .nullable(),
  headers: HeaderLinesSchema,
  signingSecret: SecretSchema.nullable(),
  generateSigningSecret: z.boolean().openapi({
    description: "Generate a `whsec_` signing secret, shown once in the response",
  }),
  signatureHeader: z.string().max(100).regex(TOKEN, { message: "Must be an HTTP header name" }),
  mappings: MappingsSchema,
  events: EventsSchema,
  standardWebhooks: z.boolean().openapi({
    description: "Also send webhook-id, webhook-timestamp and webhook-signature",
  }),
  concurrency: z.number().int().min(1).max(MAX_WEBHOOK_CONCURRENCY).nullable().openapi({
    description: "Requests in flight at once to this configuration, 1 to 64; null: the " +
      "instance's `webhooks.concurrency_per_webhook`",
    example: 4,
  }),
};

/** The body of a create request. */
export const WebhookCreateSchema = z.strictObject({
  name: fields.name.default(""),
  url: fields.url,
  method: fields.method.default("POST"),
  mode: fields.mode.default("default"),
  template: fields.template.optional(),
  bearer: fields.bearer.optional(),
  headers: fields.headers.default([]),
  signingSecret: fields.signingSecret.optional(),
  generateSigningSecret: fields.generateSigningSecret.optional(),
  signatureHeader: fields.signatureHeader.default(DEFAULT_SIGNATURE_HEADER),
  mappings: fields.mappings.default({}),
  events: fields.events.default(["create", "update"]),
  standardWebhooks: fields.standardWebhooks.default(false),
  concurrency: fields.concurrency.optional(),
}).openapi("WebhookCreate");

/** The body of an edit request: only what changes; null removes an optional setting. */
export const WebhookPatchSchema = z.strictObject({
  name: fields.name.optional(),
  url: fields.url.optional(),
  method: fields.method.optional(),
  mode: fields.mode.optional(),
  template: fields.template.optional(),
  bearer: fields.bearer.optional(),
  headers: fields.headers.optional(),
  signingSecret: fields.signingSecret.optional(),
  generateSigningSecret: fields.generateSigningSecret.optional(),
  signatureHeader: fields.signatureHeader.optional(),
  mappings: fields.mappings.optional(),
  events: fields.events.optional(),
  standardWebhooks: fields.standardWebhooks.optional(),
  concurrency: fields.concurrency.optional().openapi({
    description: "Requests in flight at once to this configuration, 1 to 64; null goes back " +
      "to the instance's `webhooks.concurrency_per_webhook`",
  }),
}).openapi("WebhookPatch");

/** A create request, validated. */
export type WebhookCreate = z.infer<typeof WebhookCreateSchema>;
/** An edit request, validated. */
export type WebhookPatch = z.infer<typeof WebhookPatchSchema>;

/**
 * A new signing secret: `whsec_` and the base64 of 32 random bytes (usable as is by the
 * Standard Webhooks libraries, and as the HMAC key of the service signature).
 */
export function generateSigningSecret(): string {
  return "whsec_" + crypto.getRandomValues(new Uint8Array(32)).toBase64();
}

/** The key bytes of a `whsec_` secret for Standard Webhooks signatures, else null. */
export function standardSecretBytes(secret: string): Uint8Array | null {
  const match = STANDARD_SECRET.exec(secret);
  if (!match) return null;
  try {
    const bytes = Uint8Array.fromBase64(match[1]);
    return bytes.length >= 24 && bytes.length <= 64 ? bytes : null;
  } catch {
    return null;
  }
}

const EMPTY_INPUT: RenderInput = {
  meta: { _recordId: "r", _formId: "f", _savedAt: "s", _reason: "insert" },
  values: {},
};

function invalid(message: string, field: string): Invalid {
  return new Invalid("invalid_request", message, field);
}

/**
 * Checks what single fields cannot: a template exactly in template modes (a JSON template
 * must be valid JSON once rendered), and a `whsec_` secret for Standard Webhooks.
 *
 * @throws {Invalid} naming the field.
 */
export function checkConfig(row: WebhookConfig): void {
  const templated = row.mode === "json_template" || row.mode === "xml_template";
  if (templated && !row.template) {
    throw invalid(`Mode "${row.mode}" needs a template`, "template");
  }
  if (!templated && row.template !== null) {
    throw invalid(`Mode "${row.mode}" takes no template`, "template");
  }
  if (row.mode === "json_template") {
    try {
      JSON.parse(renderJsonTemplate(row.template!, EMPTY_INPUT));
    } catch (err) {
      throw invalid(
        `The JSON template does not render valid JSON: ${(err as Error).message}`,
        "template",
      );
    }
  }
  const signature = row.signatureHeader.toLowerCase();
  if (
    signature === "content-type" || signature === "authorization" ||
    RESERVED_HEADERS.has(signature) || STANDARD_HEADERS.has(signature)
  ) {
    throw invalid(`"${row.signatureHeader}" cannot be the signature header`, "signatureHeader");
  }
  if (row.standardWebhooks) {
    if (!row.signingSecret || !standardSecretBytes(row.signingSecret)) {
      throw invalid(
        "Standard Webhooks needs a signing secret of the form whsec_<base64 of 24 to 64 bytes>",
        "signingSecret",
      );
    }
  }
}

/** Parsed header lines (already validated by the schema). */
function headerPairs(lines: string[]): [string, string][] {
  return lines.map((line) => parseHeaderLine(line) as [string, string]);
}

/**
 * A new configuration row from a create request; `secret` is the generated signing secret
 * to show once, if one was asked for.
 *
 * @throws {Invalid} when the fields do not fit together.
 */
export function newConfig(
  formId: string,
  input: WebhookCreate,
  now = new Date(),
): { row: WebhookConfig; secret: string | null } {
  const secret = input.generateSigningSecret ? generateSigningSecret() : null;
  if (secret && input.signingSecret) {
    throw invalid("Give signingSecret or generateSigningSecret, not both", "signingSecret");
  }
  const row: WebhookConfig = {
    id: crypto.getRandomValues(new Uint8Array(12)).toHex(),
    formId,
    name: input.name,
    url: input.url,
    method: input.method,
    mode: input.mode,
    template: input.template ?? null,
    bearer: input.bearer ?? null,
    headers: headerPairs(input.headers),
    signingSecret: secret ?? input.signingSecret ?? null,
    signatureHeader: input.signatureHeader,
    mappings: input.mappings,
    events: input.events,
    standardWebhooks: input.standardWebhooks,
    concurrency: input.concurrency ?? null,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  checkConfig(row);
  return { row, secret };
}

/**
 * `row` with `patch` applied (switching to a mode without template drops the template).
 *
 * @throws {Invalid} when the result does not fit together.
 */
export function patchConfig(
  row: WebhookConfig,
  patch: WebhookPatch,
  now = new Date(),
): { row: WebhookConfig; secret: string | null } {
  const secret = patch.generateSigningSecret ? generateSigningSecret() : null;
  if (secret && patch.signingSecret !== undefined) {
    throw invalid("Give signingSecret or generateSigningSecret, not both", "signingSecret");
  }
  const mode = patch.mode ?? row.mode;
  const templated = mode === "json_template" || mode === "xml_template";
  const next: WebhookConfig = {
    ...row,
    name: patch.name ?? row.name,
    url: patch.url ?? row.url,
    method: patch.method ?? row.method,
    mode,
    template: patch.template !== undefined ? patch.template : templated ? row.template : null,
    bearer: patch.bearer !== undefined ? patch.bearer : row.bearer,
    headers: patch.headers ? headerPairs(patch.headers) : row.headers,
    signingSecret: secret ??
      (patch.signingSecret !== undefined ? patch.signingSecret : row.signingSecret),
    signatureHeader: patch.signatureHeader ?? row.signatureHeader,
    mappings: patch.mappings ?? row.mappings,
    events: patch.events ?? row.events,
    standardWebhooks: patch.standardWebhooks ?? row.standardWebhooks,
    concurrency: patch.concurrency !== undefined ? patch.concurrency : row.concurrency,
    updatedAt: now.toISOString(),
  };
  checkConfig(next);
  return { row: next, secret };
}
