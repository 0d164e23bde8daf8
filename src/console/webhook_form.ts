/**
 * The webhook editor's HTML form, read into the owner API's create and edit requests (the
 * same zod schemas validate both), and the preview of a body rendered by the real renderer
 * against a sample record.
 *
 * @module
 */
import { Invalid, validationError } from "../errors/index.ts";
import type { WebhookConfig } from "../store/ports/webhooks.ts";
import { newConfig, patchConfig } from "../webhooks/config.ts";
import {
  formatSavedAt,
  renderBody,
  resolveValues,
  sampleValues,
  WebhookCreateSchema,
  type WebhookField,
  WebhookPatchSchema,
} from "../webhooks/index.ts";
import { field } from "./context.ts";

type Body = Record<string, string | string[]>;

/** Non-empty trimmed lines of a textarea. */
function lines(text: string): string[] {
  return text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
}

/** `field = target` lines to a mappings object; a 400 naming the bad line otherwise. */
export function parseMappings(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines(text)) {
    const eq = line.indexOf("=");
    if (eq <= 0) {
      throw new Invalid("invalid_request", `Mapping "${line}" is not "field = target"`);
    }
    out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

/** Mappings as the editor shows them. */
export function mappingLines(mappings: Record<string, string>): string {
  return Object.entries(mappings).map(([f, t]) => `${f} = ${t}`).join("\n");
}

function events(body: Body): string[] {
  const value = body.events;
  return Array.isArray(value) ? value : value ? [value] : [];
}

function concurrency(body: Body): number | null {
  const text = field(body, "concurrency");
  return text === "" ? null : Number(text);
}

const checked = (body: Body, name: string) => field(body, name) === "on";

/** The settings every request carries, from the form. */
function common(body: Body) {
  const mode = field(body, "mode");
  const templated = mode === "json_template" || mode === "xml_template";
  const template = typeof body.template === "string" ? body.template : "";
  return {
    name: field(body, "name"),
    url: field(body, "url"),
    method: field(body, "method"),
    mode,
    template: templated ? template : null,
    signatureHeader: field(body, "signatureHeader"),
    mappings: parseMappings(typeof body.mappings === "string" ? body.mappings : ""),
    events: events(body),
    standardWebhooks: checked(body, "standardWebhooks"),
    concurrency: concurrency(body),
  };
}

/**
 * A new configuration from the editor's form (validated; the generated secret, if asked for).
 *
 * @throws {Invalid} naming what is wrong.
 */
export function createFromForm(
  formId: string,
  body: Body,
): { row: WebhookConfig; secret: string | null } {
  const input = {
    ...common(body),
    bearer: field(body, "bearer") || undefined,
    headers: lines(typeof body.headers === "string" ? body.headers : ""),
    signingSecret: field(body, "signingSecret") || undefined,
    generateSigningSecret: checked(body, "generateSigningSecret"),
  };
  const parsed = WebhookCreateSchema.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error);
  return newConfig(formId, parsed.data);
}

/**
 * `before` edited by the editor's form. Secrets left blank stay as they are; "remove"
 * boxes clear them; new custom headers replace the old ones only when given.
 *
 * @throws {Invalid} naming what is wrong.
 */
export function patchFromForm(
  before: WebhookConfig,
  body: Body,
): { row: WebhookConfig; secret: string | null } {
  const headers = lines(typeof body.headers === "string" ? body.headers : "");
  const bearer = field(body, "bearer");
  const secret = field(body, "signingSecret");
  const input = {
    ...common(body),
    ...(checked(body, "removeBearer") ? { bearer: null } : bearer ? { bearer } : {}),
    ...(checked(body, "removeHeaders") ? { headers: [] } : headers.length ? { headers } : {}),
    ...(checked(body, "removeSigningSecret")
      ? { signingSecret: null }
      : secret
      ? { signingSecret: secret }
      : {}),
    ...(checked(body, "generateSigningSecret") ? { generateSigningSecret: true } : {}),
  };
  const parsed = WebhookPatchSchema.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error);
  return patchConfig(before, parsed.data);
}

/**
 * The body `row` would send for a sample record of the form's fields, rendered by the same
 * renderer deliveries use (file fields keep their sample URLs).
 *
 * @example
 * ```ts
 * const { body, contentType } = await previewBody(row, fields);
 * ```
 */
export async function previewBody(
  row: WebhookConfig,
  fields: WebhookField[],
): Promise<{ body: string; contentType: string }> {
  const input = await resolveValues(
    {
      recordId: "sample_record",
      formId: row.formId,
      savedAt: formatSavedAt(new Date()),
      reason: "insert",
      values: sampleValues(fields),
    },
    fields,
    { blobUrlLifetimeSeconds: 600 },
  );
  return renderBody(row, input);
}

/**
 * The body preview of the editor's form as it stands (payload mode, template and mappings
 * only: the rest does not change a body), for the live preview.
 *
 * @throws {Invalid} when the mode, template or mappings are not valid.
 */
export async function previewFromForm(
  formId: string,
  body: Body,
  fields: WebhookField[],
): Promise<{ body: string; contentType: string }> {
  const settings = common(body);
  const parsed = WebhookCreateSchema.pick({ mode: true, template: true, mappings: true })
    .safeParse({
      mode: settings.mode,
      template: settings.template || null,
      mappings: settings.mappings,
    });
  if (!parsed.success) throw validationError(parsed.error);
  const { mode, mappings } = parsed.data;
  const template = parsed.data.template ?? null;
  if ((mode === "json_template" || mode === "xml_template") && !template) {
    throw new Invalid("invalid_request", `Mode "${mode}" needs a template`, "template");
  }
  const row = { formId, mode, template, mappings } as WebhookConfig;
  try {
    return await previewBody(row, fields);
  } catch (err) {
    throw new Invalid("invalid_request", (err as Error).message, "template");
  }
}
