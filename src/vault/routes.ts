/**
 * The vault's owner API under `/vault`: databases, forms and versions, manifests, records,
 * quarantine. Every route needs an owner token and acts on that user's data only.
 *
 * @module
 */
import {
  errorContent as error,
  intQuery,
  jsonContent as json,
  newRouter,
} from "../http/openapi.ts";
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { toJSONSchema } from "zod";
import { FieldDefSchema } from "../forms/fields.ts";
import { jsonBody } from "../http/body.ts";
import * as ids from "../http/ids.ts";
import type { AuthEnv } from "../relay/auth.ts";
import { requireToken } from "../relay/auth.ts";
import { getRecord, listRecords } from "./records.ts";
import { MAX_RETENTION_DAYS } from "./retention.ts";
import type { Vault } from "./service.ts";

/** JSON Schema of one field definition, from the zod schema that validates it. */
const FIELD_DEFINITION = (() => {
  const { $schema: _, ...schema } = toJSONSchema(FieldDefSchema, { io: "input" });
  return schema as Record<string, unknown>;
})();

const security = [{ ownerToken: [] }];
const tags = ["vault"];

const FormIdParam = ids.FormIdSchema;
const RecordIdParam = ids.RecordIdSchema;
const Fields = z.array(z.record(z.string(), z.unknown())).openapi({
  description: "Field definitions: every kind, its options and value shapes in docs/forms.md",
  items: { $ref: "#/components/schemas/FieldDefinition" },
});

const Origins = z.array(z.string()).openapi({
  description: "Origins whose web pages may submit (https://example.com); empty: any",
});

const Files = z.enum(["plain", "encrypted"]).openapi({
  description: 'How senders handle files: "plain" (the specification\'s upload flow) or ' +
    '"encrypted" (each file encrypted to the form\'s key in the age format; docs/uploads.md)',
});

const SubmitLabel = z.string().max(100).openapi({
  description: 'The form page\'s submit button label ("" for the default "Submit")',
});

const DatabaseSchema = z.object({
  id: z.string(),
  userId: z.string(),
  relayUserId: z.string(),
  name: z.string(),
  publicKey: z.string(),
  fingerprint: z.string(),
  createdAt: z.string(),
}).openapi("VaultDatabase");

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
}).openapi("VaultForm");

const VersionSchema = z.object({
  formId: z.string(),
  schemaVersion: z.number().int(),
  title: z.string(),
  fields: Fields,
  allowedOrigins: z.array(z.string()).optional(),
  submitLabel: z.string().optional(),
  files: z.literal("encrypted").optional(),
  createdAt: z.string(),
}).openapi("VaultFormVersion");

const RecordSchema = z.object({
  _recordId: z.string(),
  _formId: z.string(),
  _savedAt: z.string().openapi({ example: "2025-01-31T12:00:00.1230000+00:00" }),
  _createdAt: z.string(),
  _schemaVersion: z.number().int(),
  _submissionId: z.string().nullable(),
  values: z.record(z.string(), z.unknown()),
}).openapi("VaultRecord");

const QuarantineSchema = z.object({
  id: z.string(),
  databaseId: z.string(),
  fingerprint: z.string(),
  submissionId: z.string(),
  version: z.number().int(),
  formId: z.string(),
  formVersion: z.number().int().nullable(),
  code: z.string(),
  reason: z.string(),
  receivedAt: z.string(),
  quarantinedAt: z.string(),
  parts: z.number().int(),
}).openapi("QuarantinedEnvelope");

const Manifest = z.record(z.string(), z.unknown()).openapi({
  description: "A signed form manifest",
});

const r = {
  listDatabases: createRoute({
    method: "get",
    path: "/vault/databases",
    tags,
    security,
    summary: "The user's databases (recipient keys held by this vault)",
    responses: { 200: json(z.object({ items: z.array(DatabaseSchema) }), "Databases") },
  }),
  createDatabase: createRoute({
    method: "post",
    path: "/vault/databases",
    tags,
    security,
    summary: "Create a database: a new key pair, registered with the relay",
    request: {
      body: { ...json(z.object({ name: z.string().min(1).max(200) }), "Name"), required: true },
    },
    responses: {
      201: json(DatabaseSchema, "Created"),
      400: error("Malformed"),
      502: error("The relay did not answer"),
    },
  }),
  manifestKey: createRoute({
    method: "get",
    path: "/vault/manifest-key",
    tags,
    security,
    summary: "The manifest-signing key: its fingerprint is what senders pin",
    responses: {
      200: json(z.object({ fingerprint: z.string(), publicKey: z.string() }), "The key"),
    },
  }),
  listForms: createRoute({
    method: "get",
    path: "/vault/forms",
    tags,
    security,
    summary: "The user's forms, each at its current schema version",
    responses: { 200: json(z.object({ items: z.array(FormSchema) }), "Forms") },
  }),
  createForm: createRoute({
    method: "post",
    path: "/vault/forms",
    tags,
    security,
    summary: "Create a form (schema version 1); optionally publish it at once",
    request: {
      body: {
        ...json(
          z.object({
            databaseId: ids.DatabaseIdSchema,
            formId: FormIdParam.optional(),
            title: z.string().max(500),
            fields: Fields,
            allowedOrigins: Origins.optional(),
            submitLabel: SubmitLabel.optional(),
            files: Files.optional(),
            publish: z.boolean().default(false),
          }),
          "The form",
        ),
        required: true,
      },
    },
    responses: {
      201: json(FormSchema, "Created"),
      400: error("Malformed fields"),
      413: error("form_too_large: title and fields over 64 KiB"),
      404: error("Unknown database"),
      409: error("Form id taken"),
    },
  }),
  getForm: createRoute({
    method: "get",
    path: "/vault/forms/{formId}",
    tags,
    security,
    summary: "A form at its current schema version",
    request: { params: z.object({ formId: FormIdParam }) },
    responses: { 200: json(FormSchema, "The form"), 404: error("Unknown form") },
  }),
  updateForm: createRoute({
    method: "put",
    path: "/vault/forms/{formId}",
    tags,
    security,
    summary: "Archive a new schema version (schemaVersion + 1); optionally publish it",
    request: {
      params: z.object({ formId: FormIdParam }),
      body: {
        ...json(
          z.object({
            title: z.string().max(500).optional(),
            fields: Fields,
            allowedOrigins: Origins.optional(),
            submitLabel: SubmitLabel.optional(),
            files: Files.optional(),
            publish: z.boolean().default(false),
          }),
          "The new schema",
        ),
        required: true,
      },
    },
    responses: {
      200: json(FormSchema, "The new version"),
      400: error("Malformed fields"),
      413: error("form_too_large: title and fields over 64 KiB"),
      404: error("Unknown form"),
    },
  }),
  formSettings: createRoute({
    method: "patch",
    path: "/vault/forms/{formId}",
    tags,
    security,
    summary: "Change a form's settings (no new schema version): retentionDays",
    request: {
      params: z.object({ formId: FormIdParam }),
      body: {
        ...json(
          z.strictObject({
            retentionDays: z.number().int().min(1).max(MAX_RETENTION_DAYS).nullable().openapi({
              description:
                `Delete records older than this many days (1 to ${MAX_RETENTION_DAYS}); ` +
                "null turns retention off",
            }),
          }),
          "The settings to change",
        ),
        required: true,
      },
    },
    responses: {
      200: json(FormSchema, "The form"),
      400: error("Malformed settings"),
      404: error("Unknown form"),
    },
  }),
  versions: createRoute({
    method: "get",
    path: "/vault/forms/{formId}/versions",
    tags,
    security,
    summary: "Every archived schema version of a form",
    request: { params: z.object({ formId: FormIdParam }) },
    responses: {
      200: json(z.object({ items: z.array(VersionSchema) }), "Versions, oldest first"),
      404: error("Unknown form"),
    },
  }),
  publish: createRoute({
    method: "post",
    path: "/vault/forms/{formId}/publish",
    tags,
    security,
    summary: "Sign the current version's manifest and publish it to the relay",
    request: { params: z.object({ formId: FormIdParam }) },
    responses: {
      200: json(z.object({ form: FormSchema, manifest: Manifest }), "Published"),
      404: error("Unknown form"),
      502: error("The relay did not answer"),
    },
  }),
  exportManifest: createRoute({
    method: "get",
    path: "/vault/forms/{formId}/manifest",
    tags,
    security,
    summary: "Export the signed manifest of the current version (no outbound configuration)",
    request: { params: z.object({ formId: FormIdParam }) },
    responses: { 200: json(Manifest, "The manifest"), 404: error("Unknown form") },
  }),
  listRecords: createRoute({
    method: "get",
    path: "/vault/forms/{formId}/records",
    tags,
    security,
    summary: "A page of a form's records",
    description: "In record-id order. A page can hold fewer than `limit` records while more " +
      "follow (deleted records are skipped): read on while `nextCursor` is not null.",
    request: {
      params: z.object({ formId: FormIdParam }),
      query: z.object({
        cursor: ids.CursorSchema.optional(),
        limit: intQuery(1, 1000).default(100),
      }),
    },
    responses: {
      200: json(
        z.object({ items: z.array(RecordSchema), nextCursor: z.string().nullable() }),
        "Records",
      ),
      404: error("Unknown form"),
    },
  }),
  createRecord: createRoute({
    method: "post",
    path: "/vault/forms/{formId}/records",
    tags,
    security,
    summary: "Create a record by hand (checked against the current schema)",
    request: {
      params: z.object({ formId: FormIdParam }),
      body: {
        ...json(z.object({ values: z.record(z.string(), z.unknown()) }), "Values"),
        required: true,
      },
    },
    responses: {
      201: json(RecordSchema, "Created"),
      400: error("Invalid values"),
      404: error("Unknown form"),
      413: error("Record too large"),
    },
  }),
  getRecord: createRoute({
    method: "get",
    path: "/vault/forms/{formId}/records/{recordId}",
    tags,
    security,
    summary: "One record",
    request: { params: z.object({ formId: FormIdParam, recordId: RecordIdParam }) },
    responses: { 200: json(RecordSchema, "The record"), 404: error("Unknown record") },
  }),
  editRecord: createRoute({
    method: "patch",
    path: "/vault/forms/{formId}/records/{recordId}",
    tags,
    security,
    summary: "Edit a record: the values given replace those fields (null clears one)",
    request: {
      params: z.object({ formId: FormIdParam, recordId: RecordIdParam }),
      body: {
        ...json(z.object({ values: z.record(z.string(), z.unknown()) }), "Changes"),
        required: true,
      },
    },
    responses: {
      200: json(RecordSchema, "The record after the edit"),
      400: error("Invalid values"),
      404: error("Unknown record"),
      413: error("Record too large"),
    },
  }),
  deleteRecord: createRoute({
    method: "delete",
    path: "/vault/forms/{formId}/records/{recordId}",
    tags,
    security,
    summary: "Delete a record",
    request: { params: z.object({ formId: FormIdParam, recordId: RecordIdParam }) },
    responses: { 204: { description: "Deleted" }, 404: error("Unknown record") },
  }),
  listQuarantine: createRoute({
    method: "get",
    path: "/vault/quarantine",
    tags,
    security,
    summary: "Envelopes that could not become records, with the reason",
    request: { query: z.object({ formId: FormIdParam.optional() }) },
    responses: { 200: json(z.object({ items: z.array(QuarantineSchema) }), "Quarantine") },
  }),
  retryQuarantine: createRoute({
    method: "post",
    path: "/vault/quarantine/retry",
    tags,
    security,
    summary: "Process quarantined envelopes again (one by id, or all)",
    request: {
      body: {
        ...json(z.object({ id: ids.QuarantineIdSchema.optional() }), "Which one (all if absent)"),
        required: true,
      },
    },
    responses: {
      200: json(
        z.object({
          items: z.array(z.object({
            id: z.string(),
            outcome: z.enum(["record", "quarantined", "duplicate"]),
            code: z.string().optional(),
            reason: z.string().optional(),
          })),
        }),
        "What became of each",
      ),
      404: error("Unknown id"),
    },
  }),
  discardQuarantine: createRoute({
    method: "delete",
    path: "/vault/quarantine/{id}",
    tags,
    security,
    summary: "Discard a quarantined envelope for good",
    request: { params: z.object({ id: ids.QuarantineIdSchema }) },
    responses: { 204: { description: "Discarded" }, 404: error("Unknown id") },
  }),
  ingest: createRoute({
    method: "post",
    path: "/vault/ingest",
    tags,
    security,
    summary: "Drain the queues now (ingest also runs on its own)",
    responses: {
      200: json(
        z.object({
          records: z.number().int(),
          quarantined: z.number().int(),
          duplicates: z.number().int(),
        }),
        "Counts",
      ),
    },
  }),
};

/** Mounts the vault's owner API on a new router. */
export function vaultRoutes(kv: Deno.Kv, vault: Vault): OpenAPIHono<AuthEnv> {
  const app = newRouter();
  // The full field-definition schema, generated from the zod schemas that validate it.
  app.openAPIRegistry.registerComponent("schemas", "FieldDefinition", FIELD_DEFINITION);
  const auth = requireToken(kv, "owner");
  const body = jsonBody(() => 1024 * 1024, {
    code: "payload_too_large",
    message: "Request body exceeds 1 MiB",
  });
  const mw = [body];
  app.use("/vault/*", auth);

  app.openapi(r.listDatabases, async (c) => {
    return c.json({ items: await vault.listDatabases(c.var.token.userId!) }, 200);
  });
  app.openapi({ ...r.createDatabase, middleware: mw }, async (c) => {
    const db = await vault.createDatabase(c.var.token.userId!, c.req.valid("json").name);
    return c.json(db, 201);
  });
  app.openapi(r.manifestKey, async (c) => {
    const { publicKey } = await vault.keys.manifestKey();
    return c.json({
      fingerprint: await vault.keys.manifestFingerprint(),
      publicKey: publicKey.toBase64(),
    }, 200);
  });
  app.openapi(r.listForms, async (c) => {
    return c.json({ items: await vault.forms.list(c.var.token.userId!) }, 200);
  });
  app.openapi({ ...r.createForm, middleware: mw }, async (c) => {
    const userId = c.var.token.userId!;
    const { publish, ...input } = c.req.valid("json");
    const form = await vault.createForm(userId, input);
    if (!publish) return c.json(form, 201);
    return c.json((await vault.publish(userId, form.formId)).form, 201);
  });
  app.openapi(r.getForm, async (c) => {
    return c.json(await vault.forms.get(c.var.token.userId!, c.req.valid("param").formId), 200);
  });
  app.openapi({ ...r.updateForm, middleware: mw }, async (c) => {
    const userId = c.var.token.userId!;
    const { formId } = c.req.valid("param");
    const { publish, ...input } = c.req.valid("json");
    const form = await vault.forms.update(userId, formId, input);
    if (!publish) return c.json(form, 200);
    return c.json((await vault.publish(userId, formId)).form, 200);
  });
  app.openapi({ ...r.formSettings, middleware: mw }, async (c) => {
    const { formId } = c.req.valid("param");
    const { retentionDays } = c.req.valid("json");
    return c.json(await vault.forms.setRetention(c.var.token.userId!, formId, retentionDays), 200);
  });
  app.openapi(r.versions, async (c) => {
    const { formId } = c.req.valid("param");
    return c.json({ items: await vault.forms.versions(c.var.token.userId!, formId) }, 200);
  });
  app.openapi(r.publish, async (c) => {
    return c.json(await vault.publish(c.var.token.userId!, c.req.valid("param").formId), 200);
  });
  app.openapi(r.exportManifest, async (c) => {
    return c.json(await vault.manifest(c.var.token.userId!, c.req.valid("param").formId), 200);
  });
  app.openapi(r.listRecords, async (c) => {
    const { formId } = c.req.valid("param");
    await vault.forms.get(c.var.token.userId!, formId);
    const { cursor, limit } = c.req.valid("query");
    return c.json(await listRecords(kv, formId, cursor, limit), 200);
  });
  app.openapi({ ...r.createRecord, middleware: mw }, async (c) => {
    const { formId } = c.req.valid("param");
    const record = await vault.createRecord(
      c.var.token.userId!,
      formId,
      c.req.valid("json").values,
    );
    return c.json(record, 201);
  });
  app.openapi(r.getRecord, async (c) => {
    const { formId, recordId } = c.req.valid("param");
    await vault.forms.get(c.var.token.userId!, formId);
    return c.json(await getRecord(kv, formId, recordId), 200);
  });
  app.openapi({ ...r.editRecord, middleware: mw }, async (c) => {
    const { formId, recordId } = c.req.valid("param");
    const { values } = c.req.valid("json");
    return c.json(await vault.editRecord(c.var.token.userId!, formId, recordId, values), 200);
  });
  app.openapi(r.deleteRecord, async (c) => {
    const { formId, recordId } = c.req.valid("param");
    await vault.deleteRecord(c.var.token.userId!, formId, recordId);
    return c.body(null, 204);
  });
  app.openapi(r.listQuarantine, async (c) => {
    const { formId } = c.req.valid("query");
    return c.json({ items: await vault.listQuarantine(c.var.token.userId!, formId) }, 200);
  });
  app.openapi({ ...r.retryQuarantine, middleware: mw }, async (c) => {
    const { id } = c.req.valid("json");
    return c.json({ items: await vault.retryQuarantine(c.var.token.userId!, id) }, 200);
  });
  app.openapi(r.discardQuarantine, async (c) => {
    await vault.discardQuarantine(c.var.token.userId!, c.req.valid("param").id);
    return c.body(null, 204);
  });
  app.openapi(r.ingest, async (c) => {
    return c.json(await vault.ingest.drain(), 200);
  });
  return app;
}
