/**
 * The vault's forms (`/vault/forms`): creating a form, archiving new schema versions, its
 * settings, publishing its signed manifest to the relay and exporting it, and its life after
 * publishing (closing, reopening, deleting: the service is `../form_lifecycle.ts`). The field
 * definitions are documented by the JSON Schema of the zod schema that validates them.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { toJSONSchema } from "zod";
import type { PersonPrincipal } from "../../auth/index.ts";
import { ClosedMessageSchema } from "../../forms/closure.ts";
import { FieldDefSchema } from "../../forms/fields.ts";
import { errors, itemsOf, jsonContent as json, requiredJson } from "../../http/openapi.ts";
import * as ids from "../../http/ids.ts";
import { NEED } from "../../people/access.ts";
import { MAX_RETENTION_DAYS } from "../retention.ts";
import { FormIdParam, FormParams, forVault, type VaultApi } from "./_router.ts";

/**
 * JSON Schema of one field definition, from the zod schema that validates it: the
 * `FieldDefinition` component that {@link Fields} refers to.
 */
const FIELD_DEFINITION = (() => {
  const { $schema: _, ...schema } = toJSONSchema(FieldDefSchema, { io: "input" });
  return schema as Record<string, unknown>;
})();

const Fields = z.array(z.record(z.string(), z.unknown())).openapi({
  description: "Field definitions: every kind, its options and value shapes in docs/forms.md",
  items: { $ref: "#/components/schemas/FieldDefinition" },
});

const Origins = z.array(z.string()).openapi({
  description: "Origins whose web pages may submit (https://example.com); empty: any",
});

const Files = z.enum(["plain", "encrypted"]).openapi({
  description: 'How senders handle files: "encrypted" (new forms\' default: each file ' +
    'encrypted to the form\'s key in the age format; docs/uploads.md) or "plain" (the ' +
    "specification's upload flow, for senders that do not encrypt)",
});

const Drafts = z.boolean().openapi({
  description: "Let senders keep a draft on this device: the form page keeps unsent answers, " +
    "encrypted with a key only its address holds (docs/security.md); false (the default): the " +
    "page keeps nothing in the browser",
});

const SubmitLabel = z.string().max(100).openapi({
  description: 'The form page\'s submit button label ("" for the default "Submit")',
});

/** A form at its current schema version, as the owner API shows it. */
const FormSchema = z.object({
  formId: z.string(),
  userId: z.string(),
  databaseId: z.string(),
  schemaVersion: z.number().int(),
  publishedVersion: z.number().int().nullable(),
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  title: z.string(),
  fields: Fields,
  retentionDays: z.number().int().nullable().openapi({
    description: "Records older than this many days are deleted; null: kept",
  }),
  allowedOrigins: z.array(z.string()),
  submitLabel: z.string(),
  files: Files,
  drafts: Drafts,
  closed: z.object({ message: z.string(), closedAt: z.string() }).nullable().openapi({
    description: "Null while the form takes submissions; else the owner's message to senders " +
      '("" for the default words) and when it was closed',
  }),
  deletedAt: z.string().nullable().openapi({
    description: "When the owner deleted the form (unpublished; its records are kept until " +
      "deleted); null otherwise",
  }),
}).openapi("VaultForm");

/** An archived schema version of a form. */
const VersionSchema = z.object({
  formId: z.string(),
  schemaVersion: z.number().int(),
  title: z.string(),
  fields: Fields,
  allowedOrigins: z.array(z.string()).optional(),
  submitLabel: z.string().optional(),
  files: z.literal("encrypted").optional(),
  drafts: z.literal(true).optional(),
  createdAt: z.string(),
}).openapi("VaultFormVersion");

const Manifest = z.record(z.string(), z.unknown()).openapi({
  description: "A signed form manifest",
});

/**
 * What a new schema version carries, in creating a form and in archiving its next version
 * (`title` ahead of these, required on creation).
 */
const SCHEMA_INPUT = {
  fields: Fields,
  allowedOrigins: Origins.optional(),
  submitLabel: SubmitLabel.optional(),
  files: Files.optional(),
  drafts: Drafts.optional(),
  publish: z.boolean().default(false),
};

/** How a new schema version is refused, in creating a form and in archiving its next version. */
const SCHEMA_ERRORS = {
  400: "Malformed fields",
  413: "form_too_large: title and fields over 64 KiB",
} as const;

const listForms = createRoute(forVault({
  method: "get",
  path: "/vault/forms",
  summary: "The user's forms, each at its current schema version (deleted forms left out)",
  responses: { 200: json(itemsOf(FormSchema), "Forms") },
}));

const createForm = createRoute(forVault({
  method: "post",
  path: "/vault/forms",
  summary: "Create a form (schema version 1); optionally publish it at once",
  request: {
    body: requiredJson(
      z.object({
        databaseId: ids.DatabaseIdSchema,
        formId: FormIdParam.optional(),
        title: z.string().max(500),
        ...SCHEMA_INPUT,
      }),
      "The form",
    ),
  },
  responses: {
    201: json(FormSchema, "Created"),
    ...errors({ ...SCHEMA_ERRORS, 404: "Unknown database", 409: "Form id taken" }),
  },
}));

const getForm = createRoute(forVault({
  method: "get",
  path: "/vault/forms/{formId}",
  summary: "A form at its current schema version",
  request: { params: FormParams },
  responses: { 200: json(FormSchema, "The form"), ...errors({ 404: "Unknown form" }) },
}));

const updateForm = createRoute(forVault({
  method: "put",
  path: "/vault/forms/{formId}",
  summary: "Archive a new schema version (schemaVersion + 1); optionally publish it",
  request: {
    params: FormParams,
    body: requiredJson(
      z.object({ title: z.string().max(500).optional(), ...SCHEMA_INPUT }),
      "The new schema",
    ),
  },
  responses: {
    200: json(FormSchema, "The new version"),
    ...errors({ ...SCHEMA_ERRORS, 404: "Unknown form" }),
  },
}));

const formSettings = createRoute(forVault({
  method: "patch",
  path: "/vault/forms/{formId}",
  summary: "Change a form's settings (no new schema version): retentionDays",
  request: {
    params: FormParams,
    body: requiredJson(
      z.strictObject({
        retentionDays: z.number().int().min(1).max(MAX_RETENTION_DAYS).nullable().openapi({
          description: `Delete records older than this many days (1 to ${MAX_RETENTION_DAYS}); ` +
            "null turns retention off",
        }),
      }),
      "The settings to change",
    ),
  },
  responses: {
    200: json(FormSchema, "The form"),
    ...errors({ 400: "Malformed settings", 404: "Unknown form" }),
  },
}));

const listVersions = createRoute(forVault({
  method: "get",
  path: "/vault/forms/{formId}/versions",
  summary: "Every archived schema version of a form",
  request: { params: FormParams },
  responses: {
    200: json(itemsOf(VersionSchema), "Versions, oldest first"),
    ...errors({ 404: "Unknown form" }),
  },
}));

const publishForm = createRoute(forVault({
  method: "post",
  path: "/vault/forms/{formId}/publish",
  summary: "Sign the current version's manifest and publish it to the relay",
  request: { params: FormParams },
  responses: {
    200: json(z.object({ form: FormSchema, manifest: Manifest }), "Published"),
    ...errors({ 404: "Unknown form", 502: "The relay did not answer" }),
  },
}));

const closeForm = createRoute(forVault({
  method: "post",
  path: "/vault/forms/{formId}/close",
  summary: "Close a form: the relay answers its submissions and page with 410 form_closed",
  description: "Senders read `message` (plain text, escaped wherever it is shown) or, when it " +
    "is empty, the default words. Amendments of earlier submissions are refused too. " +
    "Closing a closed form again replaces its message.",
  request: {
    params: FormParams,
    body: requiredJson(
      z.object({ message: ClosedMessageSchema.default("") }),
      "The owner's message to senders",
    ),
  },
  responses: {
    200: json(FormSchema, "The closed form"),
    ...errors({
      400: "Message over 500 characters",
      404: "Unknown form, or form_deleted",
      502: "The relay did not answer",
    }),
  },
}));

const reopenForm = createRoute(forVault({
  method: "post",
  path: "/vault/forms/{formId}/reopen",
  summary: "Reopen a closed form: it takes submissions again",
  request: { params: FormParams },
  responses: {
    200: json(FormSchema, "The open form"),
    ...errors({ 404: "Unknown form, or form_deleted", 502: "The relay did not answer" }),
  },
}));

const deleteForm = createRoute(forVault({
  method: "delete",
  path: "/vault/forms/{formId}",
  summary: "Delete a form: unpublished at the relay and out of the form list",
  description: "Its manifest, page and submissions then answer 404 as for an unknown form. " +
    "Its records are kept (listed, readable, exportable) until you delete them; the form's " +
    "own routes then answer form_deleted. Idempotent.",
  request: { params: FormParams },
  responses: {
    204: { description: "Deleted" },
    ...errors({ 404: "Unknown form", 502: "The relay did not answer" }),
  },
}));

const exportManifest = createRoute(forVault({
  method: "get",
  path: "/vault/forms/{formId}/manifest",
  summary: "Export the signed manifest of the current version (no outbound configuration)",
  request: { params: FormParams },
  responses: { 200: json(Manifest, "The manifest"), ...errors({ 404: "Unknown form" }) },
}));

/**
 * Adds the form routes to the owner API.
 *
 * @example
 * ```ts
 * addFormRoutes({ app, vault, body: [jsonBodyLimit] });
 * ```
 */
export function addFormRoutes({ app, vault, body }: VaultApi): void {
  // The full field-definition schema, generated from the zod schemas that validate it.
  app.openAPIRegistry.registerComponent("schemas", "FieldDefinition", FIELD_DEFINITION);
  const reader = (c: { var: { person: PersonPrincipal } }) =>
    vault.access.gate(c.var.person, NEED.read);
  const editor = (c: { var: { person: PersonPrincipal } }) =>
    vault.access.gate(c.var.person, NEED.forms);
  app.openapi(listForms, async (c) => {
    return c.json({ items: await vault.forms.list(reader(c)) }, 200);
  });
  app.openapi({ ...createForm, middleware: body }, async (c) => {
    const { publish, ...input } = c.req.valid("json");
    const form = await vault.createForm(editor(c), input);
    if (!publish) return c.json(form, 201);
    return c.json((await vault.publish(editor(c), form.formId)).form, 201);
  });
  app.openapi(getForm, async (c) => {
    return c.json(await vault.forms.get(reader(c), c.req.valid("param").formId), 200);
  });
  app.openapi({ ...updateForm, middleware: body }, async (c) => {
    const { formId } = c.req.valid("param");
    const { publish, ...input } = c.req.valid("json");
    const form = await vault.forms.update(editor(c), formId, input);
    if (!publish) return c.json(form, 200);
    return c.json((await vault.publish(editor(c), formId)).form, 200);
  });
  app.openapi({ ...formSettings, middleware: body }, async (c) => {
    const { formId } = c.req.valid("param");
    const { retentionDays } = c.req.valid("json");
    return c.json(await vault.forms.setRetention(editor(c), formId, retentionDays), 200);
  });
  app.openapi(listVersions, async (c) => {
    const { formId } = c.req.valid("param");
    return c.json({ items: await vault.forms.versions(reader(c), formId) }, 200);
  });
  app.openapi(publishForm, async (c) => {
    return c.json(await vault.publish(editor(c), c.req.valid("param").formId), 200);
  });
  app.openapi({ ...closeForm, middleware: body }, async (c) => {
    const { formId } = c.req.valid("param");
    const { message } = c.req.valid("json");
    return c.json(await vault.lifecycle.close(editor(c), formId, message), 200);
  });
  app.openapi(reopenForm, async (c) => {
    const { formId } = c.req.valid("param");
    return c.json(await vault.lifecycle.reopen(editor(c), formId), 200);
  });
  app.openapi(deleteForm, async (c) => {
    const owner = vault.access.gate(c.var.person, NEED.deleteForm);
    await vault.lifecycle.delete(owner, c.req.valid("param").formId);
    return c.body(null, 204);
  });
  app.openapi(exportManifest, async (c) => {
    return c.json(await vault.manifest(reader(c), c.req.valid("param").formId), 200);
  });
}
